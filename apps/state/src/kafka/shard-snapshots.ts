/**
 * When and how each owned shard writes its snapshot (docs/design.md §9.4): after
 * `state.snapshotEveryRecords` input records — or as many as the last snapshot had entries, if
 * more, so that writing snapshots costs at most about one entry per record consumed — or
 * `state.snapshotIntervalSeconds` after the first record since the last one, whichever comes
 * first.
 *
 * The snapshot is p's own transaction, queued behind p's batches (`TransactionalRunner.submit`):
 * every input before the positions it is given is applied and committed, none after. No other
 * writer of p's completions exists (its transactional id fences them), so the end offset of
 * `kpm.completions` p read then lies past every completion in the snapshot and before every
 * completion after it; likewise for `kpm.processes`.
 */
import { Logger } from '@nestjs/common';
import { topicName } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import { SharedAdmin, type KafkaClient, type TransactionalRunner } from '@kpm/kafka';
import type { StateShard } from '../domain/state-shard';
import { snapshotRecords, type SnapshotPositions } from './snapshot-records';

/** How soon a snapshot already due is tried again (its partition still being restored). */
const SOON_MS = 1_000;

interface Due {
  records: number;
  timer?: NodeJS.Timeout;
}

export class ShardSnapshots {
  private readonly logger = new Logger(ShardSnapshots.name);
  private readonly due = new Map<number, Due>();
  /** Each shard's last snapshot: its parts (a smaller one tombstones the rest) and entries. */
  private readonly last = new Map<number, { parts: number; entries: number }>();
  private readonly admin: SharedAdmin;
  private runner?: TransactionalRunner;

  constructor(
    private readonly settings: KpmSettings,
    kafka: KafkaClient,
    private readonly shardOf: (partition: number) => StateShard | undefined,
    /** Called for each snapshot handed to its transaction. */
    private readonly built: () => void = () => undefined,
  ) {
    this.admin = new SharedAdmin(kafka);
  }

  attach(runner: TransactionalRunner): void {
    this.runner = runner;
  }

  /**
   * p was restored, from a snapshot (`last`; undefined: none usable), replaying `replayed` facts
   * after it: those count toward the next snapshot, which comes soon after enough of them, so a
   * restart does not replay them all again. Without a snapshot one comes soon whatever p holds
   * (even nothing): a restore of p without one reads all of `kpm.processes`.
   */
  restored(
    partition: number,
    last: { parts: number; entries: number } | undefined,
    replayed: number,
  ): void {
    this.last.set(partition, last ?? { parts: 0, entries: 0 });
    if (replayed === 0 && last) return;
    const due = this.dueOf(partition);
    due.records += replayed;
    this.arm(partition, due, !last || this.enough(partition, due) ? SOON_MS : this.intervalMs);
  }

  /** `count` input records of p were applied: a snapshot is due after enough, or in a while. */
  applied(partition: number, count: number): void {
    if (count === 0) return;
    const due = this.dueOf(partition);
    due.records += count;
    if (this.enough(partition, due)) return this.take(partition);
    if (!due.timer) this.arm(partition, due, this.intervalMs);
  }

  release(partition: number): void {
    this.reset(partition);
    this.last.delete(partition);
  }

  async close(): Promise<void> {
    for (const partition of [...this.due.keys()]) clearTimeout(this.due.get(partition)?.timer);
    await this.admin.close();
  }

  private get intervalMs(): number {
    return this.settings.state.snapshotIntervalSeconds * 1000;
  }

  private dueOf(partition: number): Due {
    const due = this.due.get(partition) ?? { records: 0 };
    this.due.set(partition, due);
    return due;
  }

  private enough(partition: number, due: Due): boolean {
    const entries = this.last.get(partition)?.entries ?? 0;
    return due.records >= Math.max(this.settings.state.snapshotEveryRecords, entries);
  }

  private arm(partition: number, due: Due, delayMs: number): void {
    clearTimeout(due.timer);
    due.timer = setTimeout(() => this.take(partition), delayMs);
    due.timer.unref();
  }

  private take(partition: number): void {
    const shard = this.shardOf(partition);
    if (!shard || !this.runner) return this.reset(partition);
    const records = this.due.get(partition)?.records ?? 0;
    this.reset(partition);
    this.runner
      .submit(partition, async (next) =>
        // p may have been restored again (a new shard) since the snapshot was asked for.
        this.shardOf(partition) === shard ? this.write(partition, shard, next) : [],
      )
      .then((ran) => {
        // Not restored here yet (right after a restore): the same snapshot, a little later.
        if (!ran && this.shardOf(partition) === shard) {
          const due = this.dueOf(partition);
          due.records += records;
          this.arm(partition, due, SOON_MS);
        }
      })
      .catch((error: unknown) =>
        this.logger.error(`snapshot of partition ${partition}: ${String(error)}`),
      );
  }

  /** Nothing is due for p until its next record. */
  private reset(partition: number): void {
    clearTimeout(this.due.get(partition)?.timer);
    this.due.delete(partition);
  }

  private async write(partition: number, shard: StateShard, next: ReadonlyMap<string, bigint>) {
    const started = Date.now();
    const positions = await this.positions(partition, next);
    const topic = topicName('state-snapshots', this.settings.kafka.topicPrefix);
    const previous = this.last.get(partition)?.parts ?? 0;
    const { records, head, bytes } = await snapshotRecords(
      topic,
      partition,
      positions,
      shard.snapshot(),
      previous,
    );
    this.last.set(partition, { parts: head.parts, entries: head.entries });
    this.built();
    this.logger.log(
      `snapshot of partition ${partition}: ${head.entries} entries, ${head.parts} parts, ` +
        `${(bytes / 1024).toFixed(0)} KiB in ${Date.now() - started} ms`,
    );
    return records;
  }

  private async positions(
    partition: number,
    next: ReadonlyMap<string, bigint>,
  ): Promise<SnapshotPositions> {
    const prefix = this.settings.kafka.topicPrefix;
    const [completions, processes] = await Promise.all([
      this.admin.partitionOffsets(topicName('completions', prefix)),
      this.admin.partitionOffsets(topicName('processes', prefix)),
    ]);
    const completionsEnd = completions.find((o) => o.partition === partition)?.end;
    if (completionsEnd === undefined) throw new Error(`completions has no partition ${partition}`);
    return {
      inputs: Object.fromEntries([...next].map(([topic, offset]) => [topic, String(offset)])),
      completionsFrom: completionsEnd,
      processesFrom: Object.fromEntries(processes.map((o) => [String(o.partition), o.end])),
    };
  }
}
