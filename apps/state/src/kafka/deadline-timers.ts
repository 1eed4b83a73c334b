import { Logger } from '@nestjs/common';
import type { TransactionalRecord, TransactionalRunner } from '@kpm/kafka';
import type { StateShard } from '../domain/state-shard';

/**
 * One timer per owned partition, set to its shard's next kill deadline: when it fires, what timed
 * out is completed in p's transaction order (through the runner), then the timer is set again.
 */
export class DeadlineTimers {
  private readonly logger = new Logger(DeadlineTimers.name);
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private runner?: TransactionalRunner;

  /**
   * @param shardOf p's shard while this replica owns p
   * @param expire what `shard` publishes for its expired deadlines
   */
  constructor(
    private readonly shardOf: (partition: number) => StateShard | undefined,
    private readonly expire: (partition: number, shard: StateShard) => TransactionalRecord[],
  ) {}

  /** The runner whose transactions publish timer-driven completions. */
  attach(runner: TransactionalRunner): void {
    this.runner = runner;
  }

  /** Sets p's timer to its shard's next deadline (none when nothing is pending). */
  arm(partition: number): void {
    this.clear(partition);
    const shard = this.shardOf(partition);
    const deadline = shard?.nextDeadline();
    if (!shard || deadline === undefined || !this.runner) return;
    const runner = this.runner;
    const timer = setTimeout(
      () => {
        runner
          .submit(partition, () =>
            // p may have been restored again (a new shard) since the timer was set.
            this.shardOf(partition) === shard ? this.expire(partition, shard) : [],
          )
          .catch((error: unknown) =>
            this.logger.error(`timeout of partition ${partition}: ${String(error)}`),
          )
          .finally(() => this.arm(partition));
      },
      Math.max(0, deadline - Date.now()) + 5,
    );
    timer.unref();
    this.timers.set(partition, timer);
  }

  clear(partition: number): void {
    clearTimeout(this.timers.get(partition));
    this.timers.delete(partition);
  }
}
