/**
 * The rules of one partition's commands, without Kafka: records of different sessions (lanes)
 * run concurrently, the records of one lane run one at a time in offset order, and the offset a
 * consumer may commit is the lowest record not yet finished — so a crash redelivers every
 * unfinished record and nothing is lost (docs/design.md §9.2).
 */
export interface LaneDecision {
  /** Offsets whose handling may start now, each the head of its lane. */
  start: string[];
  /** The offset to commit (the next one to read), when it moved forward. */
  commit?: string;
}

type Admission = LaneDecision & { admitted: boolean };

export class SessionLanes {
  /** Admitted and not yet finished, in offset order: offset → lane. */
  private readonly open = new Map<bigint, string>();
  /** Finished, waiting for every lower offset to finish before they can be committed. */
  private readonly finished = new Set<bigint>();
  /** Each lane's offsets in order; the first one is running. */
  private readonly lanes = new Map<string, bigint[]>();
  private highestSeen = -1n;
  private committed?: bigint;

  constructor(readonly maxInFlight: number) {
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1)
      throw new Error(`maxInFlight must be a positive integer, got ${maxInFlight}`);
  }

  /** Records admitted and not yet finished (running or waiting for their lane). */
  get inFlight(): number {
    return this.open.size - this.finished.size;
  }

  /** No record may be admitted until one finishes. */
  get full(): boolean {
    return this.inFlight >= this.maxInFlight;
  }

  /**
   * Takes a fetched record. A record at or below the highest offset seen is a redelivery (after
   * a rebalance the fetch restarts from the committed offset): it is running, queued or done, so
   * it is not admitted again.
   */
  admit(offsetText: string, lane: string): Admission {
    const offset = BigInt(offsetText);
    if (offset <= this.highestSeen) return { admitted: false, start: [] };
    if (this.full) throw new Error(`partition full: ${this.inFlight} records in flight`);
    this.highestSeen = offset;
    // The first record fetched sits at the committed position: nothing below it to commit.
    this.committed ??= offset;
    this.open.set(offset, lane);
    const queue = this.lanes.get(lane) ?? [];
    queue.push(offset);
    this.lanes.set(lane, queue);
    return { admitted: true, start: queue.length === 1 ? [offsetText] : [] };
  }

  /** The record's handling ended: the next of its lane may start, the commit may move. */
  finish(offsetText: string): LaneDecision {
    const offset = BigInt(offsetText);
    const lane = this.open.get(offset);
    if (lane === undefined || this.finished.has(offset))
      throw new Error(`offset ${offsetText} is not running`);
    const queue = this.lanes.get(lane)!;
    if (queue[0] !== offset) throw new Error(`offset ${offsetText} is not the head of its lane`);
    queue.shift();
    if (queue.length === 0) this.lanes.delete(lane);
    this.finished.add(offset);
    const start = queue.length > 0 ? [String(queue[0])] : [];
    const commit = this.advance();
    return commit === undefined ? { start } : { start, commit };
  }

  /** The offset a consumer may commit now: the lowest open one, or one past the highest seen. */
  watermark(): string | undefined {
    for (const offset of this.open.keys()) {
      if (!this.finished.has(offset)) return String(offset);
    }
    return this.highestSeen >= 0n ? String(this.highestSeen + 1n) : undefined;
  }

  /** Drops finished records below the first open one; returns the new commit when it moved. */
  private advance(): string | undefined {
    for (const offset of this.open.keys()) {
      if (!this.finished.has(offset)) break;
      this.open.delete(offset);
      this.finished.delete(offset);
    }
    const mark = this.watermark();
    if (mark === undefined) return undefined;
    const next = BigInt(mark);
    if (this.committed !== undefined && next <= this.committed) return undefined;
    this.committed = next;
    return mark;
  }
}
