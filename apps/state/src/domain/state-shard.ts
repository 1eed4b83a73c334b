/**
 * The state of one partition number (a set of sessions): drunc's `notify_termination`,
 * `uuids_pending_deletion` and `termination_complete_event`, as a pure object. Facts go in,
 * effects (completions, broadcasts, process records) come out; exactly one completion per
 * command id, whatever the order or repetition of the facts.
 *
 * A restored shard first loads the completed command ids and the process table, then replays
 * the retained facts: a replay rebuilds the aggregates without repeating what was published,
 * except completions the replay finds due that were never published.
 *
 * Each kind of fact has its step: boot-progress, kill-progress, table-commands and
 * answered-commands; shard-memory holds what they share. When each command completes, and with
 * what, is one file each under completion/: boot, kill (and terminate), restart, ps, flush,
 * logs, and a command the boot-worker rejected or abandoned.
 */
import { CommandType, ProcessEventType, TerminationType, type KpmEvent } from '@kpm/contracts';
import {
  commandAbandoned,
  commandRejected,
  logsFetched,
  type AbandonedCommand,
} from './answered-commands';
import { acceptBoot, bootFact, processBooted } from './boot-progress';
import { receivedBroadcast } from './broadcasts';
import type { Effect } from './effects';
import {
  issueDueRestarts,
  nextRestartDue,
  rearmPendingRestarts,
  rememberSent,
} from './exit-actions';
import { acceptKill, expireKills, nextKillDeadline, processTerminated } from './kill-progress';
import { describeOpen, type OpenCommand } from './open-commands';
import type { ProcessTable } from './process-table';
import type { ShardLimits } from './shard-limits';
import { ShardMemory, type Now } from './shard-memory';
import { snapshotEntries, SnapshotLoader, type SnapshotEntry } from './shard-snapshot';
import { answerPs, flushDead, type ProcessDirectory, type TableCommand } from './table-commands';

export type { Now } from './shard-memory';
export type { OpenCommand } from './open-commands';
export type { ProcessDirectory } from './table-commands';
export { shardLimits, type ShardLimits } from './shard-limits';
export type { SnapshotEntry, SnapshotLoader } from './shard-snapshot';

export class StateShard {
  private readonly memory: ShardMemory;

  constructor(
    now: Now = Date.now,
    private readonly directory?: ProcessDirectory,
    /** Users who may flush any session (`security.operatorUsers`). */
    private readonly operators: readonly string[] = [],
    limits?: ShardLimits,
  ) {
    this.memory = new ShardMemory(now, limits);
  }

  // ---- restore -------------------------------------------------------------------------

  /** Until `endRestore`, facts rebuild aggregates but publish nothing but overdue completions. */
  beginRestore(): void {
    this.memory.beginRestore();
  }

  /** A completion read back from `kpm.completions`: the command is answered, nothing of it stays open. */
  markCompleted(commandId: string): void {
    this.memory.answered(commandId);
  }

  /** Takes back a snapshot's entries, before the facts after it are replayed. */
  snapshotLoader(): SnapshotLoader {
    return new SnapshotLoader(this.memory);
  }

  // ---- snapshots -------------------------------------------------------------------------

  /** What the shard remembers, as entries a restore takes back (shard-snapshot.ts). */
  snapshot(): Generator<SnapshotEntry> {
    return snapshotEntries(this.memory);
  }

  /** Live again; returns the completions whose deadline passed while nobody owned the shard. */
  endRestore(): Effect[] {
    this.memory.endRestore();
    rearmPendingRestarts(this.memory);
    return this.expire();
  }

  // ---- queries ---------------------------------------------------------------------------

  openCommand(commandId: string): OpenCommand | undefined {
    return this.openCommands().find((c) => c.commandId === commandId);
  }

  openCommands(): OpenCommand[] {
    return describeOpen(this.memory.boots.values(), this.memory.kills.values());
  }

  /** The process table: what `ps` answers and `kpm.processes` holds for these sessions. */
  get table(): ProcessTable {
    return this.memory.book.table;
  }

  /** How much the shard remembers for late duplicates (each bounded by its ShardLimits). */
  remembered(): { completedCommands: number; heldCommands: number; pods: number } {
    const { completed, book } = this.memory;
    return {
      completedCommands: completed.size,
      heldCommands: this.memory.heldCommands,
      pods: book.pods,
    };
  }

  /** Automatic restarts waiting for their backoff (each due on the timer that calls `expire`). */
  pendingRestarts(): number {
    return this.memory.pendingRestarts.size;
  }

  /** The earliest kill deadline or automatic restart due, for the timer that calls `expire`. */
  nextDeadline(): number | undefined {
    const times = [nextKillDeadline(this.memory), nextRestartDue(this.memory)];
    const due = times.filter((t) => t !== undefined);
    return due.length > 0 ? Math.min(...due) : undefined;
  }

  // ---- facts ----------------------------------------------------------------------------

  /** Applies one valid event; `time` is when it happened (its CloudEvent time). */
  apply(event: KpmEvent, time: number): Effect[] {
    const session = event.subject ?? '';
    const memory = this.memory;
    switch (event.type) {
      case CommandType.ps:
        return answerPs(memory, this.directory, tableCommand(event, time));
      case CommandType.flush:
        return flushDead(memory, tableCommand(event, time), this.operators);
      case CommandType.terminate:
      case CommandType.restart:
        // One the state sent under an exit policy: its completion will say why.
        if (event.data.automatic && !memory.completed.has(event.id))
          rememberSent(memory, { ...event.data.automatic, commandId: event.id });
        return this.received(event.id, event.type, session, actingUser(event));
      case CommandType.boot:
      case CommandType.kill:
      case CommandType.logs:
        return this.received(event.id, event.type, session, actingUser(event)); // the boot-worker answers it
      case ProcessEventType.bootAccepted:
        return acceptBoot(memory, event.data, session, time);
      case ProcessEventType.processBooted:
        return processBooted(memory, event.data.commandId, event.data.process);
      case ProcessEventType.processBootFailed:
        return bootFact(memory, event.data.commandId, event.data);
      case ProcessEventType.killAccepted:
        return acceptKill(memory, event.data, session, time);
      case ProcessEventType.logsFetched:
        return logsFetched(memory, event.data, session, time);
      case ProcessEventType.commandRejected:
        return commandRejected(memory, event.data, session, time);
      case TerminationType.processTerminated:
        return processTerminated(memory, event.data, time);
      default:
        return [];
    }
  }

  /** A command state cannot read: drunc's COMMAND_RECEIVED still tells it arrived. */
  invalidCommand(commandId: string, commandType: string, session: string): Effect[] {
    return this.received(commandId, commandType, session);
  }

  /** A valid command the boot-worker dead-lettered: it completes as failed (docs/design.md §6.6). */
  abandonedCommand(abandoned: AbandonedCommand, session: string, time: number): Effect[] {
    return commandAbandoned(this.memory, abandoned, session, time);
  }

  /**
   * Kills whose `timeoutSeconds` passed complete as timed_out with what is still pending;
   * automatic restarts whose backoff passed are sent (exit-actions.ts).
   */
  expire(): Effect[] {
    return [...expireKills(this.memory), ...issueDueRestarts(this.memory)];
  }

  private received(
    commandId: string,
    commandType: string,
    session: string,
    user?: string,
  ): Effect[] {
    return this.memory.publish(() => [receivedBroadcast(commandId, commandType, session, user)]);
  }
}

/** The user a command acts as (every command carries one; drunc's broadcasts name it). */
function actingUser(event: KpmEvent): string | undefined {
  const data = event.data as { user?: unknown } | undefined;
  return typeof data?.user === 'string' ? data.user : undefined;
}

function tableCommand(
  event: KpmEvent<typeof CommandType.ps | typeof CommandType.flush>,
  time: number,
): TableCommand {
  const user = 'user' in event.data ? event.data.user : undefined;
  const command = {
    commandId: event.id,
    session: event.subject ?? '',
    query: event.data.query,
    user,
    time,
  };
  if (event.type !== CommandType.ps) return command;
  const { limit, cursor } = event.data;
  return {
    ...command,
    ...(typeof limit === 'number' ? { limit } : {}),
    ...(cursor ? { cursor } : {}),
  };
}
