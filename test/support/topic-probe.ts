import { Arrivals } from './arrivals';
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import type { CloudEvent } from '@kpm/contracts';

export interface ProbedRecord {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: Buffer | null;
  /** The record's timestamp (ms since the epoch, as its producer set it). */
  timestamp: number;
  headers: Record<string, string>;
  event?: CloudEvent<Record<string, unknown>>;
  /** The record's CreateTime: when its producer sent it. */
  createdAtMs: number;
  /** When the probe read it. */
  receivedAtMs: number;
}

/**
 * Reads topics from the beginning into memory so a test can wait for the record it expects —
 * waiting on the event itself, never on a sleep.
 */
export class TopicProbe {
  private readonly arrivals = new Arrivals<ProbedRecord>();
  private readonly positions = new Set<string>();
  private consumer?: Consumer;

  constructor(
    private readonly brokers: string[],
    private readonly topics: string[],
  ) {}

  async start(): Promise<this> {
    const kafka = new Kafka({
      clientId: 'kpm-test-probe',
      brokers: this.brokers,
      logLevel: logLevel.NOTHING,
    });
    this.consumer = kafka.consumer({ groupId: `kpm-test-probe-${randomUUID()}` });
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: this.topics, fromBeginning: true });
    await this.consumer.run({
      eachMessage: ({ topic, partition, message }) => {
        // A rejoin after a coordinator failover re-reads from the last committed offset: keep
        // each record of the topic once, so a duplicate seen here is a duplicate on the topic.
        const position = `${topic}/${partition}/${message.offset}`;
        if (this.positions.has(position)) return Promise.resolve();
        this.positions.add(position);
        this.arrivals.add({
          topic,
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? null,
          value: message.value,
          timestamp: Number(message.timestamp),
          headers: Object.fromEntries(
            Object.entries(message.headers ?? {}).map(([name, v]) => [name, String(v)]),
          ),
          event: tryParse(message.value),
          createdAtMs: Number(message.timestamp),
          receivedAtMs: Date.now(),
        });
        return Promise.resolve();
      },
    });
    return this;
  }

  /** Every record read so far, in arrival order. */
  get records(): readonly ProbedRecord[] {
    return this.arrivals.records;
  }

  /** Resolves with the first record matching `predicate`, or fails after `timeoutMs` listing what was seen. */
  waitFor(predicate: (record: ProbedRecord) => boolean, timeoutMs = 30_000): Promise<ProbedRecord> {
    return this.arrivals.waitFor(predicate, timeoutMs, (records) => {
      const seen = records.map((r) => `${r.topic}[${r.partition}]@${r.offset} ${describe(r)}`);
      return `no matching record within ${timeoutMs} ms; saw:\n${seen.join('\n')}`;
    });
  }

  events(type?: string): CloudEvent<Record<string, unknown>>[] {
    return this.records.flatMap((r) =>
      r.event && (!type || r.event.type === type) ? [r.event] : [],
    );
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}

/** A record as a failed wait lists it: its type and id, and what a completion answers. */
function describe(record: ProbedRecord): string {
  const event = record.event;
  if (!event) return '(not a CloudEvent)';
  const data = event.data ?? {};
  const answer = ['commandId', 'commandType', 'status']
    .filter((key) => typeof data[key] === 'string')
    .map((key) => `${key}=${String(data[key])}`);
  return [event.type, event.id, ...answer].join(' ');
}

function tryParse(value: Buffer | null): CloudEvent<Record<string, unknown>> | undefined {
  if (!value) return undefined;
  try {
    const parsed = JSON.parse(value.toString('utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && 'specversion' in parsed
      ? (parsed as CloudEvent<Record<string, unknown>>)
      : undefined;
  } catch {
    return undefined;
  }
}
