/**
 * Small stand-ins for the kafkajs objects behind libs/kafka's seams, for unit tests of the
 * runners' rules. They record what the code under test did, in order, in one shared log; the
 * real-broker suites (test/integration) check the client library itself.
 */
import type { Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { KafkaClient } from '../kafka-client';

export type Step = string;

// kafkajs' listeners receive event-specific payloads; the fake passes them through untyped.
type Listener = (event: { payload: never }) => void;

export class FakeConsumer {
  readonly events = { GROUP_JOIN: 'join', CRASH: 'crash', END_BATCH_PROCESS: 'end-batch' };
  readonly options: Record<string, unknown>;
  eachBatch?: (payload: EachBatchPayload) => Promise<void>;
  runOptions?: Record<string, unknown>;
  /** Offsets committed through `commitOffsets`, in order. */
  readonly commits: string[] = [];
  private readonly listeners = new Map<string, Listener[]>();

  constructor(
    options: Record<string, unknown>,
    private readonly log: Step[],
  ) {
    this.options = options;
  }

  on(event: string, listener: Listener): () => void {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return () => undefined;
  }

  emit(event: string, payload: unknown): void {
    for (const listener of this.listeners.get(event) ?? []) listener({ payload: payload as never });
  }

  connect = () => Promise.resolve();
  subscribe = () => Promise.resolve();
  disconnect = () => {
    this.log.push('consumer disconnect');
    return Promise.resolve();
  };

  commitOffsets = (offsets: Array<{ topic: string; partition: number; offset: string }>) => {
    for (const { partition, offset } of offsets) {
      this.log.push(`commit ${partition}@${offset}`);
      this.commits.push(offset);
    }
    return Promise.resolve();
  };

  run(options: { eachBatch: (payload: EachBatchPayload) => Promise<void> }): Promise<void> {
    this.runOptions = options;
    this.eachBatch = options.eachBatch;
    return Promise.resolve();
  }

  asConsumer(): Consumer {
    return this as unknown as Consumer;
  }
}

/** What one fake batch delivery observed: resolved offsets and whether it stayed current. */
export interface FakeBatch {
  payload: EachBatchPayload;
  resolved: string[];
  stale: boolean;
  running: boolean;
}

export function message(
  offset: number,
  value: string | Buffer | null = `v${offset}`,
  key = 'session-a',
): KafkaMessage {
  return {
    offset: String(offset),
    key: Buffer.from(key),
    value: typeof value === 'string' ? Buffer.from(value) : value,
    timestamp: '1700000000000',
    attributes: 0,
    headers: {},
  };
}

export function fakeBatch(
  topic: string,
  partition: number,
  messages: KafkaMessage[],
  log: Step[] = [],
): FakeBatch {
  const state: FakeBatch = { resolved: [], stale: false, running: true } as unknown as FakeBatch;
  state.payload = {
    batch: {
      topic,
      partition,
      messages,
      lastOffset: () => messages[messages.length - 1]?.offset ?? '-1',
    },
    resolveOffset: (offset: string) => {
      log.push(`resolve ${offset}`);
      state.resolved.push(offset);
    },
    heartbeat: () => Promise.resolve(),
    commitOffsetsIfNecessary: () => Promise.resolve(),
    isRunning: () => state.running,
    isStale: () => state.stale,
  } as unknown as EachBatchPayload;
  return state;
}

export type FailStep = 'sendBatch' | 'sendOffsets' | 'commit' | 'abort';

/** A transactional producer; `failOn` makes the named step of its next transaction throw. */
export class FakeProducer {
  failOn?: FailStep;
  constructor(
    readonly id: string,
    private readonly log: Step[],
  ) {}

  connect = () => {
    this.log.push(`${this.id} connect`);
    return Promise.resolve();
  };

  disconnect = () => {
    this.log.push(`${this.id} disconnect`);
    return Promise.resolve();
  };

  transaction() {
    const step = (name: string, detail = '') => {
      this.log.push(`${this.id} ${name}${detail}`);
      if (this.failOn === name) {
        this.failOn = undefined;
        return Promise.reject(new Error(`${name} failed`));
      }
      return Promise.resolve();
    };
    return Promise.resolve({
      sendBatch: (b: { topicMessages: Array<{ topic: string; messages: unknown[] }> }) =>
        step(
          'sendBatch',
          ` ${b.topicMessages.map((t) => `${t.topic}×${t.messages.length}`).join(',')}`,
        ),
      sendOffsets: (o: {
        topics: Array<{ topic: string; partitions: Array<{ offset: string }> }>;
      }) => step('sendOffsets', ` ${o.topics[0].topic}@${o.topics[0].partitions[0].offset}`),
      commit: () => step('commit'),
      abort: () => step('abort'),
    });
  }
}

/** A KafkaClient whose consumers, producers and admins are the fakes above. */
export class FakeKafka {
  readonly log: Step[] = [];
  readonly consumers: FakeConsumer[] = [];
  readonly producers: FakeProducer[] = [];
  /** What `admin.fetchOffsets` answers: topic → partition → committed offset. */
  committed = new Map<string, Map<number, string>>();

  /** The step that fails in the first transaction of the next producer created. */
  failNextProducer?: FailStep;
  /** How many `admin.fetchTopicOffsets` calls fail before answering, and with what. */
  offsetFailures: { count: number; error: Error } = { count: 0, error: new Error('none') };
  /** What the admins' connections did (kept apart from `log`, which the runners' tests read). */
  readonly adminLog: Step[] = [];
  private admins = 0;

  consumer(options: Record<string, unknown>): Consumer {
    const consumer = new FakeConsumer(options, this.log);
    this.consumers.push(consumer);
    return consumer.asConsumer();
  }

  producer(options: { transactionalId?: string }): FakeProducer {
    const producer = new FakeProducer(
      `${options.transactionalId ?? 'producer'}#${this.producers.length}`,
      this.log,
    );
    producer.failOn = this.failNextProducer;
    this.failNextProducer = undefined;
    this.producers.push(producer);
    return producer;
  }

  admin() {
    const admin = ++this.admins;
    return {
      connect: () => Promise.resolve(),
      disconnect: () => {
        this.adminLog.push(`disconnect admin ${admin}`);
        return Promise.resolve();
      },
      fetchTopicOffsets: (topic: string) => {
        this.adminLog.push(`fetch ${topic} offsets on admin ${admin}`);
        if (this.offsetFailures.count-- > 0) return Promise.reject(this.offsetFailures.error);
        return Promise.resolve([{ partition: 0, low: '2', high: '7', offset: '7' }]);
      },
      fetchOffsets: ({ topics }: { topics: string[] }) => {
        this.log.push('fetch committed offsets');
        return Promise.resolve(
          topics.map((topic) => ({
            topic,
            partitions: [...(this.committed.get(topic) ?? new Map<number, string>())].map(
              ([partition, offset]) => ({ partition, offset }),
            ),
          })),
        );
      },
    };
  }

  asClient(): KafkaClient {
    return this as unknown as KafkaClient;
  }
}
