/**
 * Follows topics without a consumer group of its own to commit to: some from their beginning
 * (replayed, with progress until what they held at start is read), others from their end (live).
 * How a read-only view rebuilds itself and then stays current.
 */
import type { Consumer } from 'kafkajs';
import { CatchUp } from './catch-up';
import { toInboundRecord, type InboundRecord } from './inbound-record';
import type { KafkaClient } from './kafka-client';
import { deletePrivateGroup, nonEmptyPartitionEnds } from './shared-admin';

export interface TopicFollowOptions {
  /** A group id nobody else uses: the follower commits nothing; the group is deleted at stop. */
  groupId: string;
  /** Read from the beginning; progress is reported until what they held at start is read. */
  replay: readonly string[];
  /** Read from the end: only what is written after the follower started. */
  live: readonly string[];
  maxBytesPerPartition?: number;
  onRecord(record: InboundRecord): void;
  /** Partitions of `replay` not yet read up to their end at start; 0 once caught up. */
  onProgress(remaining: number): void;
}

export class TopicFollower {
  private consumer?: Consumer;

  constructor(
    private readonly kafka: KafkaClient,
    private readonly options: TopicFollowOptions,
  ) {}

  /** Resolves once the follower consumes; records and progress keep coming until `stop`. */
  async start(): Promise<void> {
    const { groupId, replay, live, maxBytesPerPartition } = this.options;
    const catchUp = new CatchUp(await nonEmptyPartitionEnds(this.kafka, replay));
    this.options.onProgress(catchUp.remaining);
    const advance = (topic: string, partition: number, lastOffset: string) => {
      if (catchUp.advance(topic, partition, lastOffset)) this.options.onProgress(catchUp.remaining);
    };
    const consumer = this.kafka.consumer({
      groupId,
      maxWaitTimeInMs: 250,
      maxBytesPerPartition,
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    // Batches made only of transaction markers never reach eachBatch but still move the position.
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) =>
      advance(payload.topic, payload.partition, payload.lastOffset),
    );
    await consumer.connect();
    await consumer.subscribe({ topics: [...replay], fromBeginning: true });
    await consumer.subscribe({ topics: [...live], fromBeginning: false });
    await consumer.run({
      autoCommit: false,
      eachBatch: ({ batch }) => {
        for (const message of batch.messages)
          this.options.onRecord(toInboundRecord(batch.topic, batch.partition, message));
        advance(batch.topic, batch.partition, batch.lastOffset());
        return Promise.resolve();
      },
    });
  }

  async stop(): Promise<void> {
    if (!this.consumer) return;
    await this.consumer.disconnect();
    await deletePrivateGroup(this.kafka, this.options.groupId);
  }
}
