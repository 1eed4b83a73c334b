/**
 * One partition number owned by a TransactionalRunner: its transactional producer, the next
 * input offset per topic, and a queue that runs one transaction at a time.
 */
import type { Producer } from 'kafkajs';
import type { KafkaClient } from './kafka-client';
import type { TransactionalRecord } from './partition-state-handler';

export class PartitionOwner {
  readonly next = new Map<string, bigint>();
  ready!: Promise<void>;
  restored = false;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly partition: number,
    readonly producer: Producer,
  ) {}

  /** An owner with p's transactional producer (one transactional id per partition number). */
  static create(
    kafka: KafkaClient,
    partition: number,
    producer: { transactionalId: string; transactionTimeoutMs: number },
  ): PartitionOwner {
    return new PartitionOwner(
      partition,
      kafka.producer({
        transactionalId: producer.transactionalId,
        idempotent: true,
        maxInFlightRequests: 1,
        transactionTimeout: producer.transactionTimeoutMs,
        allowAutoTopicCreation: false,
      }),
    );
  }

  /** Starting the producer fences the previous owner and aborts its open transaction. */
  async fence(): Promise<void> {
    await this.producer.connect();
    await (await this.producer.transaction()).abort();
  }

  /** Runs `work` after everything queued before it: one transaction at a time per partition. */
  enqueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.tail.then(work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** One transaction: the outputs and, for input batches, the offset after the batch. */
  async commit(
    groupId: string,
    outputs: readonly TransactionalRecord[],
    consumed?: { topic: string; offset: string },
  ): Promise<void> {
    if (outputs.length === 0 && !consumed) return;
    const tx = await this.producer.transaction();
    try {
      if (outputs.length > 0) {
        const byTopic = new Map<string, TransactionalRecord[]>();
        for (const record of outputs) {
          const list = byTopic.get(record.topic);
          if (list) list.push(record);
          else byTopic.set(record.topic, [record]);
        }
        await tx.sendBatch({
          acks: -1,
          topicMessages: [...byTopic].map(([topic, records]) => ({
            topic,
            messages: records.map(({ key, value, headers, partition }) => ({
              key,
              value,
              headers,
              partition,
            })),
          })),
        });
      }
      if (consumed) {
        await tx.sendOffsets({
          consumerGroupId: groupId,
          topics: [
            {
              topic: consumed.topic,
              partitions: [{ partition: this.partition, offset: consumed.offset }],
            },
          ],
        });
      }
      await tx.commit();
    } catch (error) {
      await tx.abort().catch(() => undefined);
      throw error;
    }
  }
}
