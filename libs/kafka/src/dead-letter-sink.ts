import type { InboundRecord } from './inbound-record';

/** Where records go that can never be handled; implementations must resolve only after the broker's ack. */
export interface DeadLetterSink {
  publish(
    record: InboundRecord,
    reason: string,
    errors?: ReadonlyArray<{ path?: string; message: string }>,
  ): Promise<void>;
}
