import { errorText, logEvent, type LogEvent } from '@kpm/common';
import type { InboundRecord } from './inbound-record';

/** Where records go that can never be handled; implementations must resolve only after the broker's ack. */
export interface DeadLetterSink {
  publish(
    record: InboundRecord,
    reason: string,
    errors?: ReadonlyArray<{ path?: string; message: string }>,
  ): Promise<void>;
  /**
   * `publish` failed for `record`: the consumer skips it rather than read it again forever
   * (docs/design.md §3.3); the sink counts it (`kpm_dead_letter_failures_total`).
   */
  failed?(record: InboundRecord, error: unknown): void;
}

/**
 * Dead-letters `record`; if even that fails, logs and counts it and moves on: a record read
 * again and again would hold up its partition for good (docs/design.md §3.3).
 */
export async function deadLetterOrSkip(
  sink: DeadLetterSink,
  record: InboundRecord,
  reason: string,
  errors?: ReadonlyArray<{ path?: string; message: string }>,
  logger?: { error(entry: LogEvent): void },
): Promise<void> {
  try {
    await sink.publish(record, reason, errors);
  } catch (error) {
    const why = errorText(error);
    logger?.error(
      logEvent('record.skipped_undeadlettered', {
        topic: record.topic,
        partition: record.partition,
        offset: record.offset,
        error: why,
        reason: reason.slice(0, 1024),
      }),
    );
    sink.failed?.(record, error);
  }
}
