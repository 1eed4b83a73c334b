import type { EncodedRecord } from '@kpm/contracts';

/** Where facts go: `kpm.process-events`, acknowledged by the broker before `send` resolves. */
export interface FactSink {
  send(records: readonly EncodedRecord[]): Promise<void>;
}
