import type { InboundRecord } from '@kpm/kafka';

/** When a fact happened: its CloudEvent time, else the record's timestamp. */
export function timeOf(time: string | undefined, record: InboundRecord): number {
  const parsed = time ? Date.parse(time) : NaN;
  return Number.isNaN(parsed) ? Number(record.timestamp) : parsed;
}
