/**
 * What the view keeps of the history while it catches up, unparsed: the latest record of each
 * process uuid on `kpm.processes` (a tombstone drops it, as compaction would) and the last
 * completions the cache can hold. Parsing only those keeps the catch-up near the size of the
 * table, not of the history: a run booted, killed and flushed leaves nothing to parse.
 */
import type { InboundRecord } from '@kpm/kafka';

export class CatchUpBuffer {
  private readonly rows = new Map<string, InboundRecord>();
  private completions: InboundRecord[] = [];

  constructor(private readonly completionsKept: number) {}

  get size(): number {
    return this.rows.size + this.completions.length;
  }

  /** A record of `kpm.processes`: the latest of its key is kept, a tombstone forgets the key. */
  row(record: InboundRecord): void {
    if (record.key === null) return;
    this.rows.delete(record.key); // re-added last: the records are applied in topic order
    if (record.value !== null) this.rows.set(record.key, record);
  }

  /** A record of `kpm.completions`: only the last `completionsKept` are kept. */
  completion(record: InboundRecord): void {
    this.completions.push(record);
    if (this.completions.length > 2 * this.completionsKept)
      this.completions = this.completions.slice(-this.completionsKept);
  }

  /**
   * Hands out and forgets what is kept: completions, then rows in the order they were last
   * written (rows kept while it runs come out too). Drain until `size` is 0.
   */
  *drain(): Generator<InboundRecord> {
    const completions = this.completions.slice(-this.completionsKept);
    this.completions = [];
    yield* completions;
    for (const [key, record] of this.rows) {
      this.rows.delete(key);
      yield record;
    }
  }
}
