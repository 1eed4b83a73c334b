/**
 * Rebuilds the shards of the partitions assigned together, in one read of the history:
 * 0. each shard's last snapshot (`kpm.state-snapshots`), if it has a usable one, is loaded;
 * 1. the completions of those partitions (to the end) → the commands already answered;
 * 2. `kpm.processes` (to the end) → the table, rows of those partitions by their header;
 * 3. `kpm.process-events` and `kpm.terminations` of those partitions, up to the committed
 *    offsets → the open aggregates and their deadlines. Facts past the committed offsets come
 *    through the consumer as usual.
 * After a snapshot, steps 1–3 read only what came after it (the positions in its head), so a
 * restore's cost follows the shard's size and the records since its last snapshot, not its
 * history. A shard without a usable snapshot reads the whole retention.
 * Completions and rows are applied batch by batch as they are read; the facts, which must come
 * after both, are kept as read (bytes) and replayed in slices that give the event loop back
 * (heartbeats, liveness, HTTP) every `SLICE_MS`.
 */
import { Logger } from '@nestjs/common';
import { CompletionType, parseRecord, ProcessTableType, topicName } from '@kpm/contracts';
import { errorText, EventLoopSlices, logEvent } from '@kpm/common';
import type { KpmSettings } from '@kpm/config';
import { type CommittedOffsets, type HistoryReader, type InboundRecord } from '@kpm/kafka';
import type { Effect } from '../domain/effects';
import type { StateShard } from '../domain/state-shard';
import { SHARD_HEADER } from './effect-records';
import { timeOf } from './fact-time';
import { parseInput } from './shard-input';
import { entriesOf, SnapshotCollector, type StoredSnapshot } from './snapshot-records';

/** Longest stretch of replay between two turns of the event loop. */
const SLICE_MS = 20;
/**
 * Offsets read first from the end of a snapshot partition: the commit marker of the last
 * snapshot's transaction (it takes an offset), its head and up to 2 parts (or tombstones) before
 * it; a longer snapshot is read again from its first part.
 */
const SNAPSHOT_TAIL = 4;

/** The facts read for the restored partitions, in the order they are replayed. */
interface Facts {
  facts: InboundRecord[];
  terminations: InboundRecord[];
}

/** What a restore rebuilt, and how: for the log, the metrics and the next snapshot. */
export interface RestoredShards {
  shards: Map<number, StateShard>;
  effects: Map<number, Effect[]>;
  /** Per partition restored from a snapshot: its parts and entries. */
  snapshots: Map<number, { parts: number; entries: number }>;
  /** Fact records replayed per partition (after its snapshot, if it had one). */
  replayed: Map<number, number>;
  /** Where the time went, for the log: ms per step, `{ snapshotsRead: 40, loaded: 3, … }`. */
  steps: Record<string, number>;
}

export class ShardRestore {
  private readonly logger = new Logger(ShardRestore.name);
  private readonly topic: Record<
    'completions' | 'processes' | 'facts' | 'terminations' | 'snapshots',
    string
  >;

  constructor(
    private readonly settings: Pick<KpmSettings, 'kafka' | 'state'>,
    private readonly readHistory: HistoryReader,
    private readonly groupId: string,
  ) {
    const prefix = settings.kafka.topicPrefix;
    this.topic = {
      completions: topicName('completions', prefix),
      processes: topicName('processes', prefix),
      facts: topicName('process-events', prefix),
      terminations: topicName('terminations', prefix),
      snapshots: topicName('state-snapshots', prefix),
    };
  }

  async run(
    partitions: readonly number[],
    committed: CommittedOffsets,
    newShard: () => StateShard,
  ): Promise<RestoredShards> {
    const restoring = () => {
      const shard = newShard();
      shard.beginRestore();
      return shard;
    };
    const shards = new Map(partitions.map((p) => [p, restoring()]));
    const steps = new StepTimes();
    const found = await this.readSnapshots(partitions, committed);
    steps.done('snapshotsRead');
    for (const [p, stored] of found) {
      if (await this.loadSnapshot(shards.get(p)!, stored)) continue;
      shards.set(p, restoring());
      found.delete(p);
    }
    steps.done('loaded');
    const history = await this.read(shards, committed, found);
    steps.done('historyRead');
    const effects = new Map<number, Effect[]>(partitions.map((p) => [p, []]));
    const replayed = new Map<number, number>(partitions.map((p) => [p, 0]));
    await replaySliced([...history.facts, ...history.terminations], (record) => {
      replayed.set(record.partition, (replayed.get(record.partition) ?? 0) + 1);
      const shard = shards.get(record.partition);
      if (shard) effects.get(record.partition)!.push(...replayRecord(this.settings, shard, record));
    });
    for (const [p, shard] of shards) effects.get(p)!.push(...shard.endRestore());
    steps.done('replayed');
    const snapshots = new Map(
      [...found].map(([p, { head }]) => [p, { parts: head.parts, entries: head.entries }]),
    );
    return { shards, effects, snapshots, replayed, steps: steps.ms };
  }

  /**
   * The last snapshot of each partition that has one the committed offsets have reached. A
   * snapshot's records are consecutive and its head comes last, so the partition's tail holds
   * the last head: only that tail is read, then, if the snapshot is longer, from its first
   * record on (a partition holds many snapshots until compaction catches up).
   */
  private async readSnapshots(
    partitions: readonly number[],
    committed: CommittedOffsets,
  ): Promise<Map<number, StoredSnapshot>> {
    const collector = new SnapshotCollector();
    await this.readSnapshotRecords(collector, partitions, { last: SNAPSHOT_TAIL });
    const further = new Map<number, string>();
    for (const p of partitions) {
      const start = collector.startOf(p);
      if (start !== undefined && !collector.complete(p)) further.set(p, start.toString());
      else if (collector.headless(p)) further.set(p, '0'); // no head in the tail: read it all
    }
    if (further.size > 0)
      await this.readSnapshotRecords(collector, [...further.keys()], { from: further });
    const found = new Map<number, StoredSnapshot>();
    for (const p of partitions) {
      try {
        const stored = collector.found(p);
        if (stored && this.reached(p, stored, committed)) found.set(p, stored);
      } catch (error) {
        this.logger.warn(logEvent('snapshot.unusable', { partition: p, error: errorText(error) }));
      }
    }
    return found;
  }

  private async readSnapshotRecords(
    collector: SnapshotCollector,
    partitions: readonly number[],
    range: { last: number } | { from: ReadonlyMap<number, string> },
  ): Promise<void> {
    await this.readHistory(
      [{ topic: this.topic.snapshots, partitions, until: 'end', ...range }],
      (record) => collector.add(record),
      { label: `${this.groupId}-restore`, timeoutMs: this.settings.state.restoreTimeoutMs },
    );
  }

  /**
   * A snapshot past the committed offsets (the group's offsets were reset, say) describes facts
   * this owner will consume again: it is not used.
   */
  private reached(p: number, stored: StoredSnapshot, committed: CommittedOffsets): boolean {
    for (const [topic, offset] of Object.entries(stored.head.inputs)) {
      const upTo = BigInt(committed.get(topic)?.get(p) ?? '0');
      if (BigInt(offset) <= upTo) continue;
      this.logger.warn(
        logEvent('snapshot.past_committed', {
          partition: p,
          snapshotId: stored.head.snapshotId,
          topic,
          offset,
          committed: upTo.toString(),
        }),
      );
      return false;
    }
    return true;
  }

  /** Loads a snapshot's entries, a turn of the event loop every slice; false if unusable. */
  private async loadSnapshot(shard: StateShard, stored: StoredSnapshot): Promise<boolean> {
    const slices = new EventLoopSlices(SLICE_MS);
    try {
      const loader = shard.snapshotLoader();
      for (const entry of entriesOf(stored)) {
        loader.take(entry);
        await slices.next();
      }
      loader.finish();
      return true;
    } catch (error) {
      this.logger.warn(
        logEvent('snapshot.unusable', {
          partition: stored.head.shard,
          snapshotId: stored.head.snapshotId,
          error: errorText(error),
        }),
      );
      return false;
    }
  }

  private async read(
    shards: Map<number, StateShard>,
    committed: CommittedOffsets,
    snapshots: Map<number, StoredSnapshot>,
  ): Promise<Facts> {
    const { topic } = this;
    const found: Facts = { facts: [], terminations: [] };
    const partitions = [...shards.keys()];
    const all = Array.from({ length: this.settings.kafka.partitions }, (_, p) => p);
    const upTo = (name: string) => committed.get(name) ?? new Map<number, string>();
    const from = after(snapshots, partitions, committed);
    const rows = from.processes(all);
    await this.readHistory(
      [
        { topic: topic.completions, partitions, until: 'end', from: from.completions },
        ...(rows
          ? [{ topic: topic.processes, partitions: all, until: 'end' as const, from: rows }]
          : []),
        { topic: topic.facts, partitions, until: upTo(topic.facts), from: from.facts(topic.facts) },
        {
          topic: topic.terminations,
          partitions,
          until: upTo(topic.terminations),
          from: from.facts(topic.terminations),
        },
      ],
      (record) => {
        if (record.topic === topic.processes) this.loadRow(shards, snapshots, record);
        else if (record.topic === topic.completions) this.markCompleted(shards, record);
        else if (record.topic === topic.facts) found.facts.push(record);
        else found.terminations.push(record);
      },
      { label: `${this.groupId}-restore`, timeoutMs: this.settings.state.restoreTimeoutMs },
    );
    return found;
  }

  private markCompleted(shards: Map<number, StateShard>, record: InboundRecord): void {
    const shard = shards.get(record.partition);
    if (!shard) return;
    const parsed = parseOwn(this.settings, record);
    if (parsed.ok && parsed.event.type === CompletionType.commandCompleted)
      shard.markCompleted(parsed.event.data.commandId);
  }

  /** A row of `kpm.processes` for its shard, unless that shard's snapshot is newer. */
  private loadRow(
    shards: Map<number, StateShard>,
    snapshots: Map<number, StoredSnapshot>,
    record: InboundRecord,
  ): void {
    const p = Number(record.headers[SHARD_HEADER]);
    const shard = shards.get(p);
    if (!shard || record.key === null) return;
    const since = snapshots.get(p)?.head.processesFrom[String(record.partition)];
    if (since !== undefined && BigInt(record.offset) < BigInt(since)) return;
    if (record.value === null) return shard.table.forget(record.key);
    const parsed = parseOwn(this.settings, record);
    if (parsed.ok && parsed.event.type === ProcessTableType.processInstance)
      shard.table.load(parsed.event.data);
  }
}

/** How long each step of a restore took. */
class StepTimes {
  readonly ms: Record<string, number> = {};
  private last = Date.now();

  done(step: string): void {
    const now = Date.now();
    this.ms[step] = now - this.last;
    this.last = now;
  }
}

/** Where the reads start: after each partition's snapshot, or at the beginning. */
function after(
  snapshots: Map<number, StoredSnapshot>,
  partitions: readonly number[],
  committed: CommittedOffsets,
) {
  const per = (pick: (stored: StoredSnapshot) => string) =>
    new Map(partitions.flatMap((p) => (snapshots.has(p) ? [[p, pick(snapshots.get(p)!)]] : [])));
  // Rows are written with input records, and by the timer of a shard with automatic restarts
  // waiting (its snapshot says so): a shard that did neither since its snapshot wrote none, and
  // needs nothing of kpm.processes (spread over every partition by uuid).
  const writing = partitions.filter((p) => !idleSince(snapshots.get(p), p, committed));
  return {
    completions: per((s) => s.head.completionsFrom),
    facts: (topic: string) => per((s) => s.head.inputs[topic] ?? '0'),
    /** The earliest position a shard that wrote rows needs (undefined: none did). */
    processes: (all: readonly number[]) =>
      writing.length === 0
        ? undefined
        : new Map(
            all.map((q) => {
              const starts = writing.map((p) =>
                BigInt(snapshots.get(p)?.head.processesFrom[String(q)] ?? '0'),
              );
              return [q, String(starts.reduce((a, b) => (a < b ? a : b)))];
            }),
          ),
  };
}

/** Partition p's committed input offsets are all where its snapshot left them. */
export function idleSince(
  stored: StoredSnapshot | undefined,
  p: number,
  committed: CommittedOffsets,
): boolean {
  if (!stored || stored.head.timerWrites) return false;
  for (const [topic, offsets] of committed)
    if ((offsets.get(p) ?? '0') !== (stored.head.inputs[topic] ?? '0')) return false;
  return true;
}

/**
 * One fact of the history applied to its shard (a restore publishes only due completions), read
 * as the live path read it (ShardInput): what it refused then is not applied now.
 */
export function replayRecord(
  settings: Pick<KpmSettings, 'kafka'>,
  shard: StateShard,
  record: InboundRecord,
): Effect[] {
  const parsed = parseInput(record, settings.kafka.maxRecordBytes);
  return parsed.ok ? shard.apply(parsed.event, timeOf(parsed.event.time, record)) : [];
}

/** Calls `each` on every record in order, giving the event loop a turn every `sliceMs`. */
export async function replaySliced(
  records: readonly InboundRecord[],
  each: (record: InboundRecord) => void,
  sliceMs = SLICE_MS,
): Promise<void> {
  const slices = new EventLoopSlices(sliceMs);
  for (const record of records) {
    each(record);
    await slices.next();
  }
}

/** State's own records read back (completions, rows): `kpm.processes` is keyed by uuid, not session. */
function parseOwn(settings: Pick<KpmSettings, 'kafka'>, record: InboundRecord) {
  return parseRecord(record.value, {
    topic: record.topic,
    maxBytes: settings.kafka.maxRecordBytes,
  });
}
