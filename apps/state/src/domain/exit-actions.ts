/**
 * The exit policy's step (docs/design.md §4 "Exit policy"): on an end nobody asked for, the
 * decision (exit-decision.ts) goes on the process's row in the transaction that records the end;
 * a restart waits in the shard's `pendingRestarts` until its backoff is due, then is sent as a
 * `restart` command with an id derived from the end; a user's kill, terminate, restart or flush of
 * the process first cancels it. The row on `kpm.processes` is the truth a restore re-arms from,
 * so a restart of the state service neither repeats nor loses an automatic action.
 */
import {
  CommandType,
  type AutomaticAction,
  type ProcessInstance,
  type ProcessTerminated,
} from '@kpm/contracts';
import { automaticBroadcast } from './broadcasts';
import { deathOf } from './deaths';
import type { CommandEffect, Effect } from './effects';
import { decideExit } from './exit-decision';
import type { ProcessBook } from './process-book';

/** What of a shard's memory the exit policy uses (ShardMemory has it). */
interface ExitMemory {
  readonly book: ProcessBook;
  /** Automatic restarts waiting for their backoff: when each is due, by uuid. */
  readonly pendingRestarts: Map<string, number>;
  /** The commands sent on the policy's behalf and not completed yet: what each completion quotes. */
  readonly automaticCommands: Map<string, AutomaticAction>;
  now(): number;
}

/**
 * `row` is the process's new DEAD row for an end nobody asked for (live only): with a policy,
 * the decision goes on it. Returns the row to write and what else the decision sends; the end's
 * death (ERS) too, unless it was `told` already (the end came before its pod's boot fact).
 */
export function exitActions(
  memory: ExitMemory,
  termination: ProcessTerminated,
  row: ProcessInstance,
  told = false,
): { row: ProcessInstance; effects: Effect[] } {
  const death = told ? [] : deathOf(termination, false);
  const policy = row.exitPolicy;
  if (!policy) return { row, effects: death };
  const { action, history } = decideExit({
    policy,
    termination,
    role: row.role,
    history: row.automatic,
    now: memory.now(),
  });
  const decided = memory.book.table.withAutomatic(row.uuid, history) ?? row;
  const effects: Effect[] = [automaticBroadcast(decided, action)];
  if (action.outcome !== 'ignored') effects.push(...death);
  if (action.outcome === 'scheduled')
    memory.pendingRestarts.set(row.uuid, Date.parse(action.dueAt!));
  if (action.outcome === 'session-failed') {
    rememberSent(memory, action);
    effects.push(terminateSession(decided, action));
  }
  return { row: decided, effects };
}

/** At most this many automatic commands wait for their completion to quote them. */
const MAX_SENT_KEPT = 10_000;

/**
 * A command sent on the policy's behalf (here, or read back from `kpm.commands`): its completion
 * quotes `action`. The oldest is dropped past MAX_SENT_KEPT (a command never completed).
 */
export function rememberSent(
  memory: Pick<ExitMemory, 'automaticCommands'>,
  action: AutomaticAction,
): void {
  if (!action.commandId) return;
  memory.automaticCommands.set(action.commandId, action);
  for (const oldest of memory.automaticCommands.keys()) {
    if (memory.automaticCommands.size <= MAX_SENT_KEPT) break;
    memory.automaticCommands.delete(oldest);
  }
}

/** Restarts whose backoff is due: each sent once, its row saying so. */
export function issueDueRestarts(memory: ExitMemory): Effect[] {
  const now = memory.now();
  const out: Effect[] = [];
  for (const [uuid, dueAt] of [...memory.pendingRestarts]) {
    if (dueAt > now) continue;
    memory.pendingRestarts.delete(uuid);
    const row = memory.book.table.get(uuid);
    const last = row?.automatic?.last;
    if (!row || last?.outcome !== 'scheduled') continue;
    const issued: AutomaticAction = { ...last, outcome: 'issued' };
    const restarts = row.automatic!.restarts + 1;
    const history = { ...row.automatic!, restarts, last: issued, lastSent: issued };
    const updated = memory.book.table.withAutomatic(uuid, history)!;
    rememberSent(memory, issued);
    out.push(
      { kind: 'process', instance: updated },
      restartProcess(updated, issued),
      automaticBroadcast(updated, issued),
    );
  }
  return out;
}

/**
 * A user's kill, terminate or restart (`commandId`) of `uuids` was accepted (live): the restarts
 * scheduled for them are cancelled, the user wins. The automatic restart itself cancels nothing.
 */
export function cancelPendingRestarts(
  memory: ExitMemory,
  uuids: readonly string[],
  commandId: string,
): Effect[] {
  const out: Effect[] = [];
  for (const uuid of uuids) {
    if (!memory.pendingRestarts.has(uuid)) continue;
    const row = memory.book.table.get(uuid);
    const last = row?.automatic?.last;
    if (!row || last?.outcome !== 'scheduled' || last.commandId === commandId) continue;
    memory.pendingRestarts.delete(uuid);
    const cancelled: AutomaticAction = {
      ...last,
      outcome: 'cancelled',
      cancelledBy: commandId,
      message: `${last.message}: cancelled by ${commandId}`,
    };
    // A restart that never ran spends none of the budget.
    const recentRestarts = withoutOne(row.automatic!.recentRestarts, last.decidedAt);
    const history = { ...row.automatic!, recentRestarts, last: cancelled };
    const updated = memory.book.table.withAutomatic(uuid, history)!;
    out.push({ kind: 'process', instance: updated }, automaticBroadcast(updated, cancelled));
  }
  return out;
}

/** Re-arms the restarts the restored rows say are scheduled (their due time kept). */
export function rearmPendingRestarts(memory: ExitMemory): void {
  memory.pendingRestarts.clear();
  for (const row of memory.book.table.all()) {
    const last = row.automatic?.last;
    if (last?.outcome === 'scheduled' && last.dueAt)
      memory.pendingRestarts.set(row.uuid, Date.parse(last.dueAt));
  }
}

export function nextRestartDue(memory: ExitMemory): number | undefined {
  let next: number | undefined;
  for (const dueAt of memory.pendingRestarts.values())
    if (next === undefined || dueAt < next) next = dueAt;
  return next;
}

function restartProcess(row: ProcessInstance, automatic: AutomaticAction): CommandEffect {
  const session = row.description.metadata.session;
  return {
    kind: 'command',
    id: automatic.commandId!,
    commandType: CommandType.restart,
    session,
    data: { query: { uuids: [row.uuid] }, user: row.description.metadata.user, automatic },
  };
}

function terminateSession(row: ProcessInstance, automatic: AutomaticAction): CommandEffect {
  const session = row.description.metadata.session;
  return {
    kind: 'command',
    id: automatic.commandId!,
    commandType: CommandType.terminate,
    session,
    data: { session, user: row.description.metadata.user, automatic },
  };
}

function withoutOne(times: readonly string[], time: string): string[] {
  const at = times.lastIndexOf(time);
  return at < 0 ? [...times] : [...times.slice(0, at), ...times.slice(at + 1)];
}
