import { CompressionTypes, type Producer } from 'kafkajs';
import { inSpan, SpanKind } from '@kpm/tracing';
import type { KafkaClient } from './kafka-client';

/** A record ready for Kafka: the key is the session (or process uuid on kpm.processes). */
export interface OutboundRecord {
  key: string | null;
  /** null publishes a tombstone (compacted topics). */
  value: Buffer | string | null;
  headers?: Record<string, string>;
}

/**
 * The one way services write to Kafka: idempotent, acks from all in-sync replicas, resolves only
 * once the broker has acknowledged (callers rely on that before removing finalizers or committing).
 */
export class EventProducer {
  private readonly producer: Producer;
  private connected = false;

  constructor(kafka: KafkaClient) {
    // maxInFlightRequests 1 keeps per-partition order across retries with kafkajs' idempotence.
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
    });
  }

  async connect(): Promise<void> {
    if (this.connected) return;
    await this.producer.connect();
    this.connected = true;
  }

  async send(topic: string, records: readonly OutboundRecord[]): Promise<void> {
    if (records.length === 0) return;
    await inSpan(`send ${topic}`, produceSpan([topic], records.length), () =>
      this.producer.send({
        topic,
        acks: -1,
        compression: CompressionTypes.None,
        messages: records.map((record) => ({
          key: record.key,
          value: record.value,
          headers: record.headers,
        })),
      }),
    );
  }

  /** Several topics in one request; still all-or-error from the caller's point of view. */
  async sendMany(
    batches: ReadonlyArray<{ topic: string; records: readonly OutboundRecord[] }>,
  ): Promise<void> {
    const topicMessages = batches
      .filter((batch) => batch.records.length > 0)
      .map((batch) => ({
        topic: batch.topic,
        messages: batch.records.map((record) => ({
          key: record.key,
          value: record.value,
          headers: record.headers,
        })),
      }));
    if (topicMessages.length === 0) return;
    const topics = topicMessages.map((t) => t.topic);
    const count = topicMessages.reduce((n, t) => n + t.messages.length, 0);
    await inSpan(`send ${topics.join(',')}`, produceSpan(topics, count), () =>
      this.producer.sendBatch({ acks: -1, topicMessages }),
    );
  }

  async disconnect(): Promise<void> {
    if (!this.connected) return;
    this.connected = false;
    await this.producer.disconnect();
  }
}

/** A produce's span: OpenTelemetry's messaging attributes. */
function produceSpan(topics: readonly string[], count: number) {
  return {
    kind: SpanKind.PRODUCER,
    attributes: {
      'messaging.system': 'kafka',
      'messaging.operation.type': 'send',
      'messaging.destination.name': topics.join(','),
      'messaging.batch.message_count': count,
    },
  };
}
