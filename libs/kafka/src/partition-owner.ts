/**
 * One partition number owned by a TransactionalRunner: its transactional producer, the next
 * input offset per topic, and a queue that runs one transaction at a time.
 */
import type { Producer } from 'kafkajs';
import type { KafkaClient } from './kafka-client';
import type { TransactionalRecord } from './partition-state-handler';

/**
 * The next transaction's first produce often reaches the coordinator while it still writes the
 * last one's commit markers: it answers CONCURRENT_TRANSACTIONS, for a few milliseconds. kafkajs
 * retries after its initial retry time, 200 ms for kpm's clients — a fifth of a second on the
 * way to a completion, ~37 % of the state's commit time in a 17-process boot and terminate
 * (2026-11-28). The markers take a few milliseconds, so the first retry comes after 2 ms,
 * doubling up to the client's longest wait: on this stack, a transaction begun right after the
 * last one's commit took 36 ms at p90 retrying after 20 ms, 23 after 5 and 15 after 2 (a median
 * of 9–13 ms each; 30 pairs). Idempotence keeps kafkajs' unlimited retries.
 */
const TRANSACTION_RETRY = { initialRetryTime: 2, retries: Number.MAX_SAFE_INTEGER };

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
        retry: TRANSACTION_RETRY,
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
      for (const request of produceRequests(outputs)) {
        const byTopic = new Map<string, TransactionalRecord[]>();
        for (const record of request) {
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

/**
 * The partition numbers a runner owns now, each with its owner. A restore that starts over gets
 * fresh owners (fresh producers); whoever holds an owner that is no longer `current` stops.
 */
export class PartitionOwners {
  private readonly owners = new Map<number, PartitionOwner>();

  constructor(
    private readonly kafka: KafkaClient,
    private readonly producer: { transactionalIdPrefix: string; transactionTimeoutMs: number },
  ) {}

  /** p's owner now. */
  get(partition: number): PartitionOwner | undefined {
    return this.owners.get(partition);
  }

  isCurrent(owner: PartitionOwner): boolean {
    return this.owners.get(owner.partition) === owner;
  }

  partitions(): number[] {
    return [...this.owners.keys()];
  }

  all(): PartitionOwner[] {
    return [...this.owners.values()];
  }

  /** New owners for `partitions` (replacing any), ready once `ready` settles. */
  create(partitions: readonly number[], ready: Promise<void>): PartitionOwner[] {
    const { transactionalIdPrefix, transactionTimeoutMs } = this.producer;
    return partitions.map((p) => {
      const owner = PartitionOwner.create(this.kafka, p, {
        transactionalId: `${transactionalIdPrefix}-${p}`,
        transactionTimeoutMs,
      });
      owner.ready = ready;
      this.owners.set(p, owner);
      return owner;
    });
  }

  /** p is not owned any more; its owner, to close. */
  remove(partition: number): PartitionOwner | undefined {
    const owner = this.owners.get(partition);
    this.owners.delete(partition);
    return owner;
  }
}

/**
 * Largest produce request of one transaction (brokers refuse requests over 100 MiB by default,
 * and hold each in memory): a snapshot of hundreds of MiB goes in many.
 */
const PRODUCE_REQUEST_BYTES = 8 * 1024 * 1024;

/** The outputs cut into produce requests of at most `limit` bytes of values (a larger record alone). */
export function produceRequests(
  outputs: readonly TransactionalRecord[],
  limit = PRODUCE_REQUEST_BYTES,
): TransactionalRecord[][] {
  const requests: TransactionalRecord[][] = [];
  let current: TransactionalRecord[] = [];
  let bytes = 0;
  for (const record of outputs) {
    const size = record.value === null ? 0 : Buffer.byteLength(record.value);
    if (current.length > 0 && bytes + size > limit) {
      requests.push(current);
      current = [];
      bytes = 0;
    }
    current.push(record);
    bytes += size;
  }
  if (current.length > 0) requests.push(current);
  return requests;
}
