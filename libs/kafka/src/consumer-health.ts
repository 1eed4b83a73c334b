/**
 * Whether a consumer is doing its job, for /readyz (docs/design.md §7.5): it is in its group,
 * it is not crashing or restarting, and no assigned partition is stuck on a record whose
 * handler keeps failing. When it is not ready, `detail` says which partition and why.
 */
export interface ConsumerHealthReport {
  ready: boolean;
  detail: string;
}

interface Stall {
  partition: string;
  offset: string;
  attempts: number;
  reason: string;
}

export class ConsumerHealth {
  private joined = false;
  private crash?: string;
  private readonly stalls = new Map<string, Stall>();

  constructor(private readonly onChange: (report: ConsumerHealthReport) => void = () => {}) {}

  /** In the group with its partitions assigned (again, after a restart). */
  joinedGroup(): void {
    this.joined = true;
    this.crash = undefined;
    this.stalls.clear();
    this.changed();
  }

  /** kafkajs crashed the consumer; with `restart` it rejoins by itself. */
  crashed(error: unknown, restart: boolean): void {
    const why = errorText(error);
    this.joined = false;
    this.crash = `${restart ? 'restarting after a crash' : 'stopped after a crash'}: ${why.slice(0, 512)}`;
    this.changed();
  }

  /**
   * The handler of `partition` (`topic[p]`) failed on `offset` and will be retried. Stalls are
   * per record: other sessions' records of the partition may finish meanwhile, but its commits
   * stay behind the stuck one (docs/design.md §9.2).
   */
  retrying(partition: string, offset: string, attempts: number, reason: string): void {
    this.stalls.set(`${partition}@${offset}`, {
      partition,
      offset,
      attempts,
      reason: reason.slice(0, 512),
    });
    this.changed();
  }

  /** The record at `offset` of `partition` is finished (handled, or dead-lettered). */
  progressed(partition: string, offset: string): void {
    if (this.stalls.delete(`${partition}@${offset}`)) this.changed();
  }

  report(): ConsumerHealthReport {
    if (this.crash) return { ready: false, detail: this.crash };
    if (!this.joined) return { ready: false, detail: 'joining the group' };
    if (this.stalls.size === 0) return { ready: true, detail: 'consuming' };
    const detail = [...this.stalls.values()]
      .map(
        (s) =>
          `${s.partition} makes no progress: offset ${s.offset} failed ${s.attempts} time${s.attempts === 1 ? '' : 's'}: ${s.reason}`,
      )
      .join('; ');
    return { ready: false, detail };
  }

  private changed(): void {
    this.onChange(this.report());
  }
}
import { errorText } from '@kpm/common';
