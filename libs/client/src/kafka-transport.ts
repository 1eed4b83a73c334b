/**
 * The client's transport over Kafka: an idempotent producer (acks from all in-sync replicas) and
 * group-less reading from fixed start offsets (`readFromPositions`). Start offsets are read with
 * the admin API *before* `subscribe` resolves, so nothing written afterwards can be missed.
 */
import type { EncodedRecord } from '@kpm/contracts';
import {
  createKafkaClient,
  EventProducer,
  readFromPositions,
  SharedAdmin,
  type KafkaClient,
  type KafkaSecuritySettings,
  type OAuthBearerTokenProvider,
  type PositionedReader,
} from '@kpm/kafka';
import { PublishBatcher } from './publish-batcher';
import type { ClientTransport, SubscribeRequest, Subscription } from './transport';

/** `ssl` and `sasl` as the services take them (`kafka.ssl`, `kafka.sasl`; secrets by file). */
export interface KafkaTransportOptions extends KafkaSecuritySettings {
  brokers: readonly string[];
  /** OAUTHBEARER: returns a current token on every authentication (else `sasl.tokenFile`). */
  oauthBearerProvider?: OAuthBearerTokenProvider;
  /** The Kafka client id (the broker's logs and quotas name the client by it). */
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
  private readonly kafka: KafkaClient;
  private readonly clientId: string;
  private readonly producer: EventProducer;
  private readonly batcher: PublishBatcher;
  private readonly admin: SharedAdmin;
  private readonly readers = new Set<PositionedReader>();
  private readonly topicChecks = new Map<string, Promise<void>>();
  private producerReady?: Promise<void>;

  constructor(options: KafkaTransportOptions) {
    this.clientId = options.clientId ?? 'kpm-client';
    const { brokers, ssl, sasl, oauthBearerProvider } = options;
    this.kafka = createKafkaClient(
      { clientId: this.clientId, brokers: [...brokers], ssl, sasl },
      { logs: 'silent', retries: options.retries ?? 5, maxRetryTimeMs: 2_000, oauthBearerProvider },
    );
    this.producer = new EventProducer(this.kafka);
    this.admin = new SharedAdmin(this.kafka);
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
    const reader = await readFromPositions(this.kafka, {
      topics: request.topics,
      next: await this.startOffsets(request.topics, request.from),
      fromBeginning: request.from === 'earliest',
      onRecord: ({ topic, partition, offset, key, value }) =>
        request.onRecord({ topic, partition, offset, key, value }),
      onError: (error) => request.onError(error),
    });
    this.readers.add(reader);
    return {
      close: async () => {
        this.readers.delete(reader);
        await reader.close();
      },
    };
  }

  async close(): Promise<void> {
    const readers = [...this.readers];
    this.readers.clear();
    await Promise.allSettled(readers.map((reader) => reader.close()));
    await this.producer.disconnect();
    await this.admin.close();
  }

  /** Where each partition starts: its end (log end, or last stable offset) or its beginning. */
  private async startOffsets(
    topics: readonly string[],
    from: SubscribeRequest['from'],
  ): Promise<Map<string, string>> {
    await this.requireTopics(topics);
    const next = new Map<string, string>();
    for (const topic of topics) {
      for (const p of await this.admin.partitionOffsets(topic)) {
        next.set(`${topic}/${p.partition}`, from === 'latest' ? p.end : p.low);
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
        if (!(await this.admin.listTopics()).includes(topic)) throw new MissingTopicError(topic);
      })();
      this.topicChecks.set(topic, check);
      check.catch(() => this.topicChecks.delete(topic)); // a missing topic may be created later
    }
    return check;
  }
}
