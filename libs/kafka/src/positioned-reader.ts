/**
 * Reads topics from fixed start positions, committing nothing and joining no consumer group.
 *
 * kafkajs consumes only in a group, and a broker holds a new group's first join for its
 * `group.initial.rebalance.delay.ms`: 3 s by default (the local stack sets 0, as Kafka's
 * development configurations do). A CLI waiting for its completion joined a group of its own
 * before sending its command, so on a cluster with the default it paid those 3 s each time.
 *
 * This reader fetches itself, through kafkajs' own cluster (its connections, TLS and SASL,
 * metadata and retries as the client was made) and its own batch parsing (transaction markers
 * and aborted records left out, as a read_committed consumer does): one loop per partition
 * leader, each fetch waiting up to {@link MAX_WAIT_MS} for records. A leader that moves, a broker
 * that restarts: the loops stop, metadata is read again and they start over from the next
 * offset of each partition, so nothing is skipped or handed out twice. kafkajs 2.2.4 is its last
 * release, so the internals used here do not move under kpm.
 */
import type { KafkaMessage } from 'kafkajs';
import { CatchUp } from './catch-up';
import { toInboundRecord, type InboundRecord } from './inbound-record';
import type { KafkaClient } from './kafka-client';

interface PositionedReadRequest {
  topics: readonly string[];
  /** The next offset to hand out per `topic/partition`; moves on as records are handed out. */
  next: Map<string, string>;
  /** Where partitions missing from `next` start. */
  fromBeginning: boolean;
  /** Read only the partitions `next` names, not every partition of the topics. */
  onlyPositioned?: boolean;
  /** Bytes a fetch asks of each partition (default 1 MiB; a larger first batch still comes). */
  maxBytesPerPartition?: number;
  /** Awaited before the next record of the partition. */
  onRecord(record: InboundRecord): Promise<void> | void;
  /**
   * A partition's next offset moved: past the records handed out, or past what was left out
   * alone (transaction markers, aborted records), which no `onRecord` tells.
   */
  onPosition?(topic: string, partition: number, next: string): void;
  /** The reader stopped for good (the broker stayed unreachable, say); no record follows. */
  onError(error: Error): void;
  /**
   * Rounds of failed fetches in a row before the reader gives up (default 10, about 15 s; a
   * service's reader passes Infinity and rides out any outage).
   */
  maxFailures?: number;
  /** Waits between failed rounds (tests pass their own clock). */
  sleep?: (ms: number) => Promise<void>;
}

export interface PositionedReader {
  close(): Promise<void>;
}

/** How long a fetch waits at the broker for a first record. */
export const MAX_WAIT_MS = 500;
const MAX_BYTES = 10 * 1024 * 1024;
const MAX_BYTES_PER_PARTITION = 1024 * 1024;
const READ_COMMITTED = 1;

/** Starts reading; resolves once the reader runs (its start positions fixed). */
export async function readFromPositions(
  kafka: KafkaClient,
  request: PositionedReadRequest,
): Promise<PositionedReader> {
  const cluster = clusterOf(kafka);
  try {
    await cluster.connect();
    await cluster.addMultipleTargetTopics([...request.topics]);
    await startPositions(cluster, request);
  } catch (error) {
    await cluster.disconnect().catch(() => undefined);
    throw error;
  }
  const reader = new FetchLoops(cluster, request);
  void reader.run();
  return reader;
}

/** Every partition of the topics has a next offset: its own, or the beginning or end. */
async function startPositions(cluster: Cluster, request: PositionedReadRequest): Promise<void> {
  if (request.onlyPositioned) return;
  const missing = request.topics
    .map((topic) => ({
      topic,
      partitions: cluster
        .findTopicPartitionMetadata(topic)
        .map((p) => ({ partition: p.partitionId }))
        .filter(({ partition }) => !request.next.has(CatchUp.key(topic, partition))),
      fromBeginning: request.fromBeginning,
    }))
    .filter(({ partitions }) => partitions.length > 0);
  if (missing.length === 0) return;
  for (const { topic, partitions } of await cluster.fetchTopicsOffset(missing)) {
    for (const { partition, offset } of partitions) {
      request.next.set(CatchUp.key(topic, partition), offset);
    }
  }
}

class FetchLoops implements PositionedReader {
  private stopped = false;
  /** Set by a loop that failed: the others stop after their fetch and metadata is read again. */
  private failure?: Error;
  /** A fetch succeeded in this round: the failures before it no longer count. */
  private fetched = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly request: PositionedReadRequest,
  ) {}

  /**
   * Stops handing out records at once. The connections close in the background: kafkajs waits
   * for a fetch in flight (up to {@link MAX_WAIT_MS}) before it closes one, and a CLI that
   * awaited that would end up to half a second late.
   */
  close(): Promise<void> {
    this.stopped = true;
    void this.cluster.disconnect().catch(() => undefined);
    return Promise.resolve();
  }

  async run(): Promise<void> {
    const maxFailures = this.request.maxFailures ?? 10;
    let failures = 0;
    while (!this.stopped) {
      this.failure = undefined;
      this.fetched = false;
      try {
        await this.cluster.refreshMetadataIfNecessary();
        const leaders = this.leaders();
        if (leaders.size === 0) throw noLeader(this.request.topics);
        await Promise.all([...leaders].map(([nodeId, parts]) => this.follow(nodeId, parts)));
      } catch (error) {
        this.failure = error as Error;
      }
      if (this.stopped) return;
      const failure = this.failure;
      if (failure === undefined) continue;
      failures = this.fetched ? 1 : failures + 1;
      if (!isRetriable(failure) || failures > maxFailures) {
        this.stopped = true;
        await this.cluster.disconnect().catch(() => undefined);
        this.request.onError(failure);
        return;
      }
      await this.recover(failure, failures);
    }
  }

  /** The partitions of the topics by the node that leads them. */
  private leaders(): Map<string, TopicPartitions[]> {
    const byNode = new Map<string, TopicPartitions[]>();
    for (const topic of this.request.topics) {
      const partitions = this.cluster
        .findTopicPartitionMetadata(topic)
        .map((p) => p.partitionId)
        .filter(
          (p) => !this.request.onlyPositioned || this.request.next.has(CatchUp.key(topic, p)),
        );
      if (partitions.length === 0) continue;
      for (const [nodeId, led] of Object.entries(
        this.cluster.findLeaderForPartitions(topic, partitions),
      )) {
        byNode.set(nodeId, [...(byNode.get(nodeId) ?? []), { topic, partitions: led }]);
      }
    }
    return byNode;
  }

  /** Fetches from one leader until the reader stops or a loop fails. */
  private async follow(nodeId: string, parts: TopicPartitions[]): Promise<void> {
    try {
      const broker = await this.cluster.findBroker({ nodeId });
      while (!this.stopped && this.failure === undefined) {
        const { responses } = await broker.fetch({
          maxWaitTime: MAX_WAIT_MS,
          minBytes: 1,
          maxBytes: MAX_BYTES,
          isolationLevel: READ_COMMITTED,
          topics: parts.map(({ topic, partitions }) => ({
            topic,
            partitions: partitions.map((partition) => ({
              partition,
              fetchOffset: this.nextOffset(topic, partition),
              maxBytes: this.request.maxBytesPerPartition ?? MAX_BYTES_PER_PARTITION,
            })),
          })),
        });
        this.fetched = true;
        for (const { topicName, partitions } of responses) {
          for (const data of partitions) await this.handOut(topicName, data);
        }
      }
    } catch (error) {
      if (!this.stopped) this.failure ??= error as Error;
    }
  }

  /** Hands the partition's records out one by one, each after the previous one was taken. */
  private async handOut(topic: string, data: PartitionData): Promise<void> {
    const key = CatchUp.key(topic, data.partition);
    const batch = new Batch(topic, this.nextOffset(topic, data.partition), data);
    for (const message of batch.messages) {
      if (this.stopped) return;
      await this.request.onRecord(toInboundRecord(topic, data.partition, message));
      this.request.next.set(key, (BigInt(message.offset) + 1n).toString());
    }
    // Past what was left out too (transaction markers, aborted records), never past what
    // was not fetched.
    const seen = batch.messagesWithinOffset;
    if (!this.stopped && seen.length > 0) {
      const next = (BigInt(seen[seen.length - 1].offset) + 1n).toString();
      this.request.next.set(key, next);
      this.request.onPosition?.(topic, data.partition, next);
    }
  }

  /**
   * Brings the partition's position within what it holds: up to its first record when
   * retention deleted the records before it (gone for every reader), back to its end if past it.
   */
  private async withinRange(topic: string, partition: number): Promise<void> {
    const key = CatchUp.key(topic, partition);
    const offsetOf = async (fromBeginning: boolean) => {
      const [answer] = await this.cluster.fetchTopicsOffset([
        { topic, partitions: [{ partition }], fromBeginning },
      ]);
      return BigInt(answer?.partitions[0]?.offset ?? '0');
    };
    const [first, end] = [await offsetOf(true), await offsetOf(false)];
    const next = BigInt(this.nextOffset(topic, partition));
    const moved = next < first ? first : next > end ? end : next;
    if (moved === next) return;
    this.request.next.set(key, moved.toString());
    this.request.onPosition?.(topic, partition, moved.toString());
  }

  private nextOffset(topic: string, partition: number): string {
    const offset = this.request.next.get(CatchUp.key(topic, partition));
    if (offset === undefined) throw new Error(`no start position for ${topic}/${partition}`);
    return offset;
  }

  /**
   * After a failed round: forget a closed broker, bring a position the partition no longer
   * holds back within it, read metadata again, back off.
   */
  private async recover(failure: Error, failures: number): Promise<void> {
    const closed = failure as Error & { host?: string; port?: number };
    if (failure.name === 'KafkaJSConnectionClosedError' && closed.host && closed.port) {
      this.cluster.removeBroker({ host: closed.host, port: closed.port });
    }
    if (isOutOfRange(failure)) {
      await this.withinRange(failure.topic, failure.partition).catch(() => undefined);
    }
    await this.cluster.refreshMetadata().catch(() => undefined);
    const sleep = this.request.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    await sleep(Math.min(2_000, 100 * 2 ** failures));
  }
}

function noLeader(topics: readonly string[]): Error {
  const error = new Error(`no partition of ${topics.join(', ')} has a leader the metadata names`);
  return Object.assign(error, { retriable: true });
}

/**
 * kafkajs marks what a retry can cure (a moved leader, a lost connection, a timeout); a position
 * out of range is cured by {@link FetchLoops.withinRange}.
 */
function isRetriable(error: Error): boolean {
  return isOutOfRange(error) || (error as Error & { retriable?: boolean }).retriable === true;
}

function isOutOfRange(error: Error): error is Error & { topic: string; partition: number } {
  const at = error as Error & { topic?: unknown; partition?: unknown };
  return (
    error.name === 'KafkaJSOffsetOutOfRange' &&
    typeof at.topic === 'string' &&
    typeof at.partition === 'number'
  );
}

// --- kafkajs' internals -------------------------------------------------------------------

interface TopicPartitions {
  topic: string;
  partitions: number[];
}

interface PartitionData {
  partition: number;
  highWatermark: string;
  messages: KafkaMessage[];
  abortedTransactions?: unknown[];
}

interface FetchRequest {
  maxWaitTime: number;
  minBytes: number;
  maxBytes: number;
  isolationLevel: number;
  topics: Array<{
    topic: string;
    partitions: Array<{ partition: number; fetchOffset: string; maxBytes: number }>;
  }>;
}

interface Broker {
  fetch(request: FetchRequest): Promise<{
    responses: Array<{ topicName: string; partitions: PartitionData[] }>;
  }>;
}

interface Cluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addMultipleTargetTopics(topics: string[]): Promise<void>;
  refreshMetadata(): Promise<void>;
  refreshMetadataIfNecessary(): Promise<void>;
  removeBroker(address: { host: string; port: number }): void;
  findBroker(query: { nodeId: string }): Promise<Broker>;
  findTopicPartitionMetadata(topic: string): Array<{ partitionId: number }>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  fetchTopicsOffset(
    topics: Array<{
      topic: string;
      partitions: Array<{ partition: number }>;
      fromBeginning: boolean;
    }>,
  ): Promise<Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>>;
}

/** A fetch response's partition as a read_committed consumer sees it. */
interface FetchedBatch {
  /** The records to hand out: none before the fetched offset, no marker, nothing aborted. */
  messages: KafkaMessage[];
  /** Every record at or after the fetched offset, markers and aborted ones included. */
  messagesWithinOffset: KafkaMessage[];
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const Batch = require('kafkajs/src/consumer/batch') as new (
  topic: string,
  fetchedOffset: string,
  data: PartitionData,
) => FetchedBatch;

/** A cluster made by the client's own factory: its brokers, TLS, SASL, retries and logger. */
function clusterOf(kafka: KafkaClient): Cluster {
  const factory = Object.getOwnPropertySymbols(kafka).find(
    (symbol) => symbol.description === 'private:Kafka:createCluster',
  );
  if (factory === undefined) throw new Error('kafkajs has no cluster factory: not kafkajs 2.2?');
  const create = (kafka as unknown as Record<symbol, (options: object) => Cluster>)[factory];
  return create({
    metadataMaxAge: 300_000, // kafkajs' own default for its consumers
    allowAutoTopicCreation: false,
    isolationLevel: READ_COMMITTED,
  });
}
