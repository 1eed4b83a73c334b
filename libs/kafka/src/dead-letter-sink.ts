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
