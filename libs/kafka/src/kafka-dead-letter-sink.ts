import { hostname } from 'node:os';
import {
  buildEvent,
  deadLetterEventId,
  DeadLetterType,
  encodeEvent,
  topicName,
  type DeadLetter,
} from '@kpm/contracts';
import type { DeadLetterSink } from './dead-letter-sink';
import type { EventProducer, OutboundRecord } from './event-producer';
import type { InboundRecord } from './inbound-record';

/**
 * Writes unhandleable records to `kpm.dead-letters` as CloudEvents carrying the raw bytes, the
 * original coordinates and the reason; keyed by the original key so a replay keeps its partition.
 */
export class KafkaDeadLetterSink implements DeadLetterSink {
  constructor(
    private readonly producer: EventProducer,
    private readonly topicPrefix: string,
    private readonly consumerGroup?: string,
  ) {}

  async publish(
    record: InboundRecord,
    reason: string,
    errors: ReadonlyArray<{ path?: string; message: string }> = [],
  ): Promise<void> {
    const letter = deadLetterRecord(record, reason, errors, this.consumerGroup);
    await this.producer.send(topicName('dead-letters', this.topicPrefix), [letter]);
  }
}

/** The dead-letter record of `record`, for writers that batch it (e.g. inside a transaction). */
export function deadLetterRecord(
  record: InboundRecord,
  reason: string,
  errors: ReadonlyArray<{ path?: string; message: string }> = [],
  consumerGroup?: string,
): OutboundRecord & { key: string } {
  const data: DeadLetter = {
    reason,
    source: { topic: record.topic, partition: record.partition, offset: record.offset },
    consumerGroup,
    key: record.key ?? undefined,
    valueBase64: record.value ? record.value.toString('base64') : undefined,
    headers: record.headers,
    errors: errors.map((error) => ({ path: error.path ?? '(record)', message: error.message })),
  };
  const event = buildEvent({
    // One id per source coordinate: a dead letter re-published after a crash is recognisable.
    id: deadLetterEventId(record.topic, record.partition, record.offset),
    type: DeadLetterType.deadLetter,
    source: `/kpm/dead-letters/${hostname()}`,
    subject: record.key || undefined,
    data,
  });
  return { ...encodeEvent(event), key: record.key ?? '' };
}
