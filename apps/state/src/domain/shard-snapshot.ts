/**
 * A shard's memory as a list of small entries and back (docs/design.md §9.4, snapshots): a
 * restore loads the last snapshot and replays only the facts after it, so its cost follows
 * what the shard holds, not how long it has lived.
 *
 * Entries are small (a list is cut into slices of `SLICE`) so that a writer can pack them into
 * records of bounded size and a reader can give the event loop a turn between them. The order
 * matters: a command's header comes before its lists, and ids keep their recency order.
 */
import type { AcceptedProcess, KillKind, ProcessBootFailed, ProcessInstance } from '@kpm/contracts';
import { BootAggregate } from './boot-aggregate';
import { KillAggregate, type KillProgressState, type KillTarget } from './kill-aggregate';
import type { ProcessRecord } from './process-book';
import type { BootFact, ShardMemory } from './shard-memory';

/** Items per list entry: a slice of 500 terminations or instances is well under a MiB. */
export const SLICE = 500;

interface CommandHeader {
  commandId: string;
  session: string;
  acceptedAt: number;
}
interface KillHeader extends CommandHeader, KillProgressState {
  kind: KillKind;
}

export type SnapshotEntry =
  | ['completed', string[]]
  | ['forgotten', string[]]
  | ['process', ProcessRecord]
  | ['boot', CommandHeader]
  | ['boot-processes', string, AcceptedProcess[]]
  | ['boot-booted', string, ProcessInstance[]]
  | ['boot-failed', string, ProcessBootFailed[]]
  | ['kill', KillHeader]
  | ['kill-targets', string, KillTarget[]]
  | ['held', string, BootFact[]];

/** The entries of `memory`, in the order `SnapshotLoader` takes them back. */
export function* snapshotEntries(memory: ShardMemory): Generator<SnapshotEntry> {
  for (const ids of slices(memory.completed.values())) yield ['completed', ids];
  for (const pods of slices(memory.book.forgottenPods())) yield ['forgotten', pods];
  for (const record of memory.book.records()) yield ['process', record];
  for (const boot of memory.boots.values()) yield* bootEntries(boot);
  for (const kill of memory.kills.values()) yield* killEntries(kill);
  for (const [commandId, facts] of memory.heldFacts())
    for (const slice of slices(facts)) yield ['held', commandId, slice];
}

function* bootEntries(boot: BootAggregate): Generator<SnapshotEntry> {
  const { commandId, session, acceptedAt } = boot;
  yield ['boot', { commandId, session, acceptedAt }];
  for (const slice of slices(boot.processes)) yield ['boot-processes', commandId, slice];
  const { booted, failed } = boot.outcomes();
  for (const slice of slices(booted)) yield ['boot-booted', commandId, slice];
  for (const slice of slices(failed)) yield ['boot-failed', commandId, slice];
}

function* killEntries(kill: KillAggregate): Generator<SnapshotEntry> {
  const { commandId, kind, session, acceptedAt } = kill;
  yield ['kill', { commandId, kind, session, acceptedAt, ...kill.progressState() }];
  for (const slice of slices(kill.targetList())) yield ['kill-targets', commandId, slice];
}

/** A command read back: its header first, its lists after; built once all are in. */
interface Draft<H> {
  header: H;
  lists: unknown[][];
}

/**
 * Takes entries back into an empty memory (restoring: bounds suspended). Commands are built in
 * `finish`, once their lists are complete. An entry it cannot read throws: the caller then
 * restores without the snapshot.
 */
export class SnapshotLoader {
  private readonly boots = new Map<string, Draft<CommandHeader> & { outcomes: BootFact[] }>();
  private readonly kills = new Map<string, Draft<KillHeader>>();

  constructor(private readonly memory: ShardMemory) {}

  take(entry: SnapshotEntry): void {
    const [kind] = entry;
    switch (entry[0]) {
      case 'completed':
        return strings(entry[1]).forEach((id) => this.memory.completed.add(id));
      case 'forgotten':
        return strings(entry[1]).forEach((pod) => this.memory.book.restoreForgotten(pod));
      case 'process':
        return this.memory.book.restore(processRecord(entry[1]));
      case 'boot':
        return void this.boots.set(entry[1].commandId, {
          header: entry[1],
          lists: [],
          outcomes: [],
        });
      case 'boot-processes':
        return void this.draft(this.boots, entry[1]).lists.push(list(entry[2]));
      case 'boot-booted':
      case 'boot-failed':
        return void this.draft(this.boots, entry[1]).outcomes.push(...list<BootFact>(entry[2]));
      case 'kill':
        return void this.kills.set(entry[1].commandId, { header: entry[1], lists: [] });
      case 'kill-targets':
        return void this.draft(this.kills, entry[1]).lists.push(list(entry[2]));
      case 'held':
        return list<BootFact>(entry[2]).forEach((f) => this.memory.holdEarly(entry[1], f));
      default:
        throw new Error(`unknown snapshot entry ${JSON.stringify(kind)}`);
    }
  }

  /** Builds the commands read back into the memory. */
  finish(): void {
    for (const { header, lists, outcomes } of this.boots.values()) {
      const processes = lists.flat() as AcceptedProcess[];
      const boot = new BootAggregate(
        header.commandId,
        header.session,
        header.acceptedAt,
        processes,
      );
      for (const fact of outcomes) {
        if ('podUid' in fact) boot.offerBooted(fact);
        else boot.offerFailed(fact);
      }
      this.memory.boots.set(header.commandId, boot);
    }
    for (const { header, lists } of this.kills.values()) {
      const { commandId, kind, session, acceptedAt, timing } = header;
      const targets = lists.flat() as KillTarget[];
      const kill = new KillAggregate(commandId, kind, session, acceptedAt, timing, targets);
      kill.resumeProgress(header);
      this.memory.kills.set(commandId, kill);
    }
  }

  private draft<D>(drafts: Map<string, D>, commandId: string): D {
    const draft = drafts.get(commandId);
    if (!draft) throw new Error(`snapshot lists command ${commandId} before its header`);
    return draft;
  }
}

function* slices<T>(items: Iterable<T>): Generator<T[]> {
  let slice: T[] = [];
  for (const item of items) {
    slice.push(item);
    if (slice.length === SLICE) {
      yield slice;
      slice = [];
    }
  }
  if (slice.length > 0) yield slice;
}

function list<T>(value: unknown): T[] {
  if (!Array.isArray(value)) throw new Error('snapshot entry holds no list');
  return value as T[];
}

function strings(value: unknown): string[] {
  const ids = list<unknown>(value);
  if (!ids.every((id) => typeof id === 'string')) throw new Error('snapshot ids are not strings');
  return ids;
}

function processRecord(value: ProcessRecord): ProcessRecord {
  if (typeof value?.uuid !== 'string') throw new Error('snapshot process has no uuid');
  return { ...value, pods: strings(value.pods), terminations: list(value.terminations) };
}
