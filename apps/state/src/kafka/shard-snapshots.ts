/**
 * When and how each owned shard writes its snapshot (docs/design.md §9.4): after
 * `state.snapshotEveryRecords` input records — or as many as the last snapshot had entries, if
 * more, so that writing snapshots costs at most about one entry per record consumed — or
 * `state.snapshotIntervalSeconds` after the first record since the last one, whichever comes
 * first.
 *
 * The snapshot is p's own transaction, run by the TransactionalRunner when it is due (`dueAt`,
 * through the coordinator's `nextWake`), behind p's batches: every input before the positions it
 * is given is applied and committed, none after. No other writer of p's completions exists (its
 * transactional id fences them), so the end offset of `kpm.completions` p read then lies past
 * every completion in the snapshot and before every completion after it; likewise for
 * `kpm.processes`.
 */
import { Logger } from '@nestjs/common';
import { logEvent, type Clock } from '@kpm/common';
import { topicName } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import type { TransactionalRecord } from '@kpm/kafka';
import type { StateShard } from '../domain/state-shard';
import { snapshotRecords, type SnapshotPositions } from './snapshot-records';

/** How soon after a restore a snapshot comes when one is wanted at once. */
const SOON_MS = 1_000;

/** The end offset of each partition of a topic (SharedAdmin `partitionOffsets`). */
export type EndOffsets = (topic: string) => Promise<Array<{ partition: number; end: string }>>;

interface Due {
  records: number;
  at?: number;
}

export class ShardSnapshots {
  private readonly logger = new Logger(ShardSnapshots.name);
  private readonly due = new Map<number, Due>();
  /** Each shard's last snapshot: its parts (a smaller one tombstones the rest) and entries. */
  private readonly last = new Map<number, { parts: number; entries: number }>();

  constructor(
    private readonly settings: Pick<KpmSettings, 'kafka' | 'state'>,
    private readonly endOffsets: EndOffsets,
    private readonly clock: Clock,
    /** Called for each snapshot handed to its transaction. */
    private readonly built: () => void = () => undefined,
  ) {}

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
    const wait = !last || this.enough(partition, due) ? SOON_MS : this.intervalMs;
    due.at = this.clock.now() + wait;
  }

  /** `count` input records of p were applied: a snapshot is due after enough, or in a while. */
  applied(partition: number, count: number): void {
    if (count === 0) return;
    const due = this.dueOf(partition);
    due.records += count;
    if (this.enough(partition, due)) due.at = this.clock.now();
    else due.at ??= this.clock.now() + this.intervalMs;
  }

  /** When p's next snapshot is due; undefined: nothing to write until its next record. */
  dueAt(partition: number): number | undefined {
    return this.due.get(partition)?.at;
  }

  /** p's snapshot, if it is due: the records of its transaction (none when not due). */
  async takeIfDue(
    partition: number,
    shard: StateShard,
    next: ReadonlyMap<string, bigint>,
  ): Promise<TransactionalRecord[]> {
    const at = this.dueAt(partition);
    if (at === undefined || at > this.clock.now()) return [];
    this.due.delete(partition);
    return this.write(partition, shard, next);
  }

  release(partition: number): void {
    this.due.delete(partition);
    this.last.delete(partition);
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

  private async write(partition: number, shard: StateShard, next: ReadonlyMap<string, bigint>) {
    const started = this.clock.now();
    const positions = {
      ...(await this.positions(partition, next)),
      ...(shard.pendingRestarts() > 0 ? { timerWrites: true as const } : {}),
    };
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
      logEvent('snapshot.written', {
        partition,
        entries: head.entries,
        parts: head.parts,
        bytes,
        durationMs: this.clock.now() - started,
      }),
    );
    return records;
  }

  private async positions(
    partition: number,
    next: ReadonlyMap<string, bigint>,
  ): Promise<SnapshotPositions> {
    const prefix = this.settings.kafka.topicPrefix;
    const [completions, processes] = await Promise.all([
      this.endOffsets(topicName('completions', prefix)),
      this.endOffsets(topicName('processes', prefix)),
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
