/**
 * Follows topics without a consumer group: some from their beginning (replayed, with progress
 * until what they held at start is read), others from their end (live). How a read-only view
 * rebuilds itself and then stays current. It reads through `readFromPositions`, so it waits for
 * no group join (a broker holds a new group's first one for `group.initial.rebalance.delay.ms`,
 * 3 s by default) and rides out any broker outage; only an error no retry cures stops it.
 */
import { CatchUp } from './catch-up';
import type { InboundRecord } from './inbound-record';
import type { KafkaClient } from './kafka-client';
import { readFromPositions, type PositionedReader } from './positioned-reader';
import { withAdmin } from './shared-admin';

export interface TopicFollowOptions {
  /** Read from the beginning; progress is reported until what they held at start is read. */
  replay: readonly string[];
  /** Read from the end: only what is written after the follower started. */
  live: readonly string[];
  maxBytesPerPartition?: number;
  onRecord(record: InboundRecord): void;
  /** Partitions of `replay` not yet read up to their end at start; 0 once caught up. */
  onProgress(remaining: number): void;
  /** The follower stopped on an error no retry cures (an ACL taken away, say). */
  onError(error: Error): void;
}

export class TopicFollower {
  private reader?: PositionedReader;

  constructor(
    private readonly kafka: KafkaClient,
    private readonly options: TopicFollowOptions,
  ) {}

  /** Resolves once the follower reads; records and progress keep coming until `stop`. */
  async start(): Promise<void> {
    const { replay, live, maxBytesPerPartition } = this.options;
    const { next, ends } = await this.startOffsets();
    const catchUp = new CatchUp(ends);
    this.options.onProgress(catchUp.remaining);
    this.reader = await readFromPositions(this.kafka, {
      topics: [...replay, ...live],
      next,
      fromBeginning: true,
      maxBytesPerPartition,
      maxFailures: Infinity,
      onRecord: (record) => this.options.onRecord(record),
      // Past transaction markers too, which no record tells.
      onPosition: (topic, partition, position) => {
        if (catchUp.advance(topic, partition, (BigInt(position) - 1n).toString())) {
          this.options.onProgress(catchUp.remaining);
        }
      },
      onError: (error) => this.options.onError(error),
    });
  }

  async stop(): Promise<void> {
    await this.reader?.close();
  }

  /**
   * From one read of the offsets: the replayed topics from their first offset and the end of
   * each non-empty one (what catching up reaches), the live ones from their end.
   */
  private startOffsets(): Promise<{ next: Map<string, string>; ends: Map<string, bigint> }> {
    const { replay, live } = this.options;
    return withAdmin(this.kafka, async (admin) => {
      const next = new Map<string, string>();
      const ends = new Map<string, bigint>();
      for (const topic of replay) {
        for (const p of await admin.fetchTopicOffsets(topic)) {
          const key = CatchUp.key(topic, p.partition);
          next.set(key, p.low);
          if (BigInt(p.high) > BigInt(p.low)) ends.set(key, BigInt(p.high));
        }
      }
      for (const topic of live) {
        for (const p of await admin.fetchTopicOffsets(topic)) {
          next.set(CatchUp.key(topic, p.partition), p.high);
        }
      }
      return { next, ends };
    });
  }
}
