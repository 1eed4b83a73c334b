import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import {
  boundedFieldErrors,
  buildEvent,
  DEAD_LETTER_VALUE_BYTES,
  deadLetterEventId,
  DeadLetterType,
  encodeEvent,
  topicName,
  boundedText,
  eventSource,
  type DeadLetter,
} from '@kpm/contracts';
import type { DeadLetterSink } from './dead-letter-sink';
import type { EventProducer, OutboundRecord } from './event-producer';
import type { InboundRecord } from './inbound-record';

/**
 * Writes unhandleable records to `kpm.dead-letters` as CloudEvents carrying the start of the raw
 * bytes (at most 64 KiB, with the value's length and SHA-256), the original coordinates and the
 * reason; keyed by the original key so a replay keeps its partition. A dead letter is bounded
 * whatever the record held, so writing it cannot fail for its size.
 */
export class KafkaDeadLetterSink implements DeadLetterSink {
  constructor(
    private readonly producer: EventProducer,
    private readonly topicPrefix: string,
    private readonly consumerGroup?: string,
    /** Counts records that could not be dead-lettered (`kpm_dead_letter_failures_total`). */
    private readonly failures?: { inc(): void },
  ) {}

  failed(): void {
    this.failures?.inc();
  }

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
    key: record.key === null ? undefined : boundedText(record.key, MAX_DEAD_LETTER_KEY_LENGTH),
    ...(record.value ? valueSummary(record.value) : {}),
    headers: record.headers,
    errors: boundedFieldErrors(
      errors.map((error) => ({ path: error.path ?? '(record)', message: error.message })),
    ),
  };
  const event = buildEvent({
    // One id per source coordinate: a dead letter re-published after a crash is recognisable.
    id: deadLetterEventId(record.topic, record.partition, record.offset),
    type: DeadLetterType.deadLetter,
    source: eventSource('dead-letters', hostname()),
    subject: data.key || undefined,
    data,
  });
  return { ...encodeEvent(event), key: data.key ?? '' };
}

/** A key longer than this is kept as a bounded copy in the data (the record key stays whole). */
const MAX_DEAD_LETTER_KEY_LENGTH = 256;

/** The value's first 64 KiB, its length and its SHA-256. */
function valueSummary(value: Buffer): Partial<DeadLetter> {
  const kept = value.subarray(0, DEAD_LETTER_VALUE_BYTES);
  return {
    valueBase64: kept.toString('base64'),
    valueBytes: value.length,
    valueSha256: createHash('sha256').update(value).digest('hex'),
    ...(kept.length < value.length ? { valueTruncated: true } : {}),
  };
}
