/**
 * The client's transport over Kafka: an idempotent producer (acks from all in-sync replicas) and
 * group-less reading from fixed start offsets.
 *
 * kafkajs only consumes in a consumer group, so each subscription uses a group of its own that
 * commits nothing. Start offsets are read with the admin API *before* `subscribe` resolves and
 * applied by a seek on every group join (kafkajs emits GROUP_JOIN synchronously before its first
 * fetch); after a rejoin the seek resumes after the last record handed out, so a rebalance or
 * reconnect neither skips nor replays records.
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Admin, type Consumer, type EachBatchPayload } from 'kafkajs';
import type { EncodedRecord } from '@kpm/contracts';
import { EventProducer } from '@kpm/kafka/event-producer'; // not the index: it loads Nest
import { PublishBatcher } from './publish-batcher';
import type { ClientTransport, SubscribeRequest, Subscription } from './transport';

export interface KafkaTransportOptions {
  brokers: readonly string[];
  /** Kafka client id and the stem of the subscriptions' group ids. */
  clientId?: string;
  /**
   * Give up on an unreachable broker after this many retries (default 5, about 10 s): a person
   * at a terminal should hear that the broker is down, not wait minutes.
   */
  retries?: number;
}

/** A topic the client needs does not exist yet: the services create them at start. */
export class MissingTopicError extends Error {
  constructor(readonly topic: string) {
    super(
      `topic ${topic} does not exist: are the kpm services running with this topic prefix? (npx kpm services up, or npx kpm topics create)`,
    );
    this.name = 'MissingTopicError';
  }
}

export class KafkaTransport implements ClientTransport {
  private readonly kafka: Kafka;
  private readonly clientId: string;
  private readonly producer: EventProducer;
  private readonly batcher: PublishBatcher;
  private readonly subscriptions = new Set<Consumer>();
  private readonly topicChecks = new Map<string, Promise<void>>();
  private producerReady?: Promise<void>;
  private adminReady?: Promise<Admin>;

  constructor(options: KafkaTransportOptions) {
    this.clientId = options.clientId ?? 'kpm-client';
    this.kafka = new Kafka({
      clientId: this.clientId,
      brokers: [...options.brokers],
      logLevel: logLevel.NOTHING,
      retry: { initialRetryTime: 200, maxRetryTime: 2_000, retries: options.retries ?? 5 },
    });
    this.producer = new EventProducer(this.kafka);
    this.batcher = new PublishBatcher((batches) => this.producer.sendMany(batches));
  }

  async publish(topic: string, records: readonly EncodedRecord[]): Promise<void> {
    await this.requireTopics([topic]);
    this.producerReady ??= this.producer.connect().catch((error: unknown) => {
      this.producerReady = undefined;
      throw error;
    });
    await this.producerReady;
    await this.batcher.publish(topic, records);
  }

  async subscribe(request: SubscribeRequest): Promise<Subscription> {
    const next = await this.startOffsets(request.topics, request.from);
    const consumer = this.kafka.consumer({
      groupId: `${this.clientId}-${randomUUID()}`,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 500,
    });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      for (const [topic, partitions] of Object.entries(payload.memberAssignment)) {
        for (const partition of partitions) {
          const offset = next.get(`${topic}/${partition}`);
          if (offset !== undefined) consumer.seek({ topic, partition, offset });
        }
      }
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) request.onError(payload.error);
    });
    const eachBatch = async (payload: EachBatchPayload) => {
      const { batch } = payload;
      for (const message of batch.messages) {
        if (!payload.isRunning() || payload.isStale()) return;
        await whileBeating(
          () => payload.heartbeat(),
          () =>
            request.onRecord({
              topic: batch.topic,
              partition: batch.partition,
              offset: message.offset,
              key: message.key ? message.key.toString('utf8') : null,
              value: message.value,
            }),
        );
        payload.resolveOffset(message.offset);
        next.set(`${batch.topic}/${batch.partition}`, (BigInt(message.offset) + 1n).toString());
      }
    };
    try {
      await consumer.connect();
      await consumer.subscribe({
        topics: [...request.topics],
        fromBeginning: request.from === 'earliest',
      });
      await consumer.run({ autoCommit: false, eachBatch });
    } catch (error) {
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
    this.subscriptions.add(consumer);
    return {
      close: async () => {
        this.subscriptions.delete(consumer);
        await consumer.disconnect();
      },
    };
  }

  async close(): Promise<void> {
    const consumers = [...this.subscriptions];
    this.subscriptions.clear();
    await Promise.allSettled(consumers.map((c) => c.disconnect()));
    await this.producer.disconnect();
    const admin = await this.adminReady?.catch(() => undefined);
    await admin?.disconnect();
  }

  /** Where each partition starts: its end (log end, or last stable offset) or its beginning. */
  private async startOffsets(
    topics: readonly string[],
    from: SubscribeRequest['from'],
  ): Promise<Map<string, string>> {
    await this.requireTopics(topics);
    const admin = await this.admin();
    const next = new Map<string, string>();
    for (const topic of topics) {
      for (const p of await admin.fetchTopicOffsets(topic)) {
        next.set(`${topic}/${p.partition}`, from === 'latest' ? p.offset : p.low);
      }
    }
    return next;
  }

  /** Checks each topic once (concurrent callers share the check). */
  private async requireTopics(topics: readonly string[]): Promise<void> {
    await Promise.all(topics.map((topic) => this.requireTopic(topic)));
  }

  private requireTopic(topic: string): Promise<void> {
    let check = this.topicChecks.get(topic);
    if (!check) {
      check = (async () => {
        if (!(await (await this.admin()).listTopics()).includes(topic)) {
          throw new MissingTopicError(topic);
        }
      })();
      this.topicChecks.set(topic, check);
      check.catch(() => this.topicChecks.delete(topic)); // a missing topic may be created later
    }
    return check;
  }

  private admin(): Promise<Admin> {
    this.adminReady ??= (async () => {
      const admin = this.kafka.admin();
      await admin.connect();
      return admin;
    })().catch((error: unknown) => {
      this.adminReady = undefined;
      throw error;
    });
    return this.adminReady;
  }
}

/** kafkajs heartbeats only between batches: keep the membership alive while a reader is slow. */
async function whileBeating<T>(heartbeat: () => Promise<void>, work: () => Promise<T> | T) {
  const timer = setInterval(() => void heartbeat().catch(() => undefined), 1_000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
