import { errorText, delay, logEvent, type LogEvent } from '@kpm/common';
import type { InboundRecord } from './inbound-record';
import { SessionLanes, type LaneDecision } from './session-lanes';

/** What one partition's work needs from its consumer. */
interface PartitionSeat {
  topic: string;
  partition: number;
  maxInFlight: number;
  /** Handles a record until it is done (true) or given up because the work stops (false). */
  handle(record: InboundRecord, signal: AbortSignal): Promise<boolean>;
  /** Commits `offset` (the next to read) for this partition. */
  commit(offset: string): Promise<void>;
  warn(entry: LogEvent): void;
  /** Wait before handling a record again whose handling itself failed (e.g. its dead letter). */
  relaunchAfterMs: number;
}

/**
 * The records of one assigned partition in flight: SessionLanes decides what may run and what may
 * be committed; this carries it out — starts handlers, commits in order, wakes a fetch waiting
 * for room, and stops everything when the partition is revoked or the consumer stops.
 */
export class PartitionWork {
  private readonly lanes: SessionLanes;
  private readonly records = new Map<string, InboundRecord>();
  private readonly running = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private commits: Promise<void> = Promise.resolve();
  private roomWaiters: Array<() => void> = [];
  private revoked = false;

  constructor(
    private readonly seat: PartitionSeat,
    stopping: AbortSignal,
  ) {
    this.lanes = new SessionLanes(seat.maxInFlight);
    if (stopping.aborted) this.stop();
    else stopping.addEventListener('abort', () => this.stop(), { once: true });
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get full(): boolean {
    return this.lanes.full;
  }

  /** Takes a fetched record; a redelivered one is ignored (it is running, queued or done). */
  admit(record: InboundRecord, lane: string): void {
    const admission = this.lanes.admit(record.offset, lane);
    if (admission.admitted) this.records.set(record.offset, record);
    this.apply(admission);
  }

  /** Resolves when a record may be admitted, or the work stopped. */
  room(): Promise<void> {
    if (!this.lanes.full || this.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** The consumer stops: handlers give up, nothing more starts; what finished is still committed. */
  stop(): void {
    this.abort.abort();
    this.wake();
  }

  /** The partition left this consumer: as stop, and nothing more is committed. */
  revoke(): void {
    this.revoked = true;
    this.stop();
  }

  /** Commits the watermark again (a commit during a rebalance may have failed). */
  recommit(): void {
    const mark = this.lanes.watermark();
    if (mark !== undefined) this.commit(mark);
  }

  /** Resolves once no handler runs and every commit was tried. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    await this.commits;
  }

  private apply(decision: LaneDecision): void {
    if (decision.commit !== undefined) this.commit(decision.commit);
    if (this.signal.aborted) return;
    for (const offset of decision.start) this.launch(offset);
  }

  private launch(offset: string): void {
    const record = this.records.get(offset)!;
    const run = this.seat
      .handle(record, this.signal)
      .then((done) => {
        // Given up while stopping: the record stays open, so it is committed never and redelivered.
        if (!done) return;
        this.records.delete(offset);
        this.apply(this.lanes.finish(offset));
        if (!this.lanes.full) this.wake();
      })
      .catch(async (error: unknown) => {
        // Not even dead-lettered (the broker is away): the lane waits, then tries again.
        this.seat.warn(
          logEvent('record.relaunching', { ...this.where(), offset, error: errorText(error) }),
        );
        await delay(this.seat.relaunchAfterMs, this.signal);
        if (!this.signal.aborted) this.launch(offset);
      })
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }

  private commit(offset: string): void {
    // After a revoke the partition belongs to another member: its commits must not be overwritten.
    if (this.revoked) return;
    this.commits = this.commits.then(() =>
      this.seat
        .commit(offset)
        .catch((error: unknown) =>
          this.seat.warn(
            logEvent('offset.commit_failed', { ...this.where(), offset, error: errorText(error) }),
          ),
        ),
    );
  }

  private wake(): void {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const wake of waiters) wake();
  }

  private where(): { topic: string; partition: number } {
    return { topic: this.seat.topic, partition: this.seat.partition };
  }
}
