/**
 * The state of one partition number (a set of sessions): drunc's `notify_termination`,
 * `uuids_pending_deletion` and `termination_complete_event`, as a pure object. Facts go in,
 * effects (completions, broadcasts, process records) come out; exactly one completion per
 * command id, whatever the order or repetition of the facts.
 *
 * A restored shard first loads the completed command ids and the process table, then replays
 * the retained facts: a replay rebuilds the aggregates without repeating what was published,
 * except completions the replay finds due that were never published.
 */
import {
  CommandType,
  ProcessEventType,
  TerminationType,
  type KpmEvent,
  type ProcessBootFailed,
  type ProcessInstance,
  type ProcessQuery,
  type ProcessTerminated,
} from '@kpm/contracts';
import { BootAggregate } from './boot-aggregate';
import {
  completionEffects,
  receivedBroadcast,
  startBroadcast,
  terminationBroadcast,
} from './broadcasts';
import type { Effect } from './effects';
import { KillAggregate } from './kill-aggregate';
import { ProcessBook } from './process-book';
import type { ProcessTable } from './process-table';
import { describeOpen, type OpenCommand } from './open-commands';
import { bootCompletion, killCommandType, killCompletion } from './completions';

export type Clock = () => number;

/** Answers ps across the table(s) this replica knows; a lone shard answers from its own. */
export type { OpenCommand } from './open-commands';

export type ProcessDirectory = (query: ProcessQuery) => ProcessInstance[];

export class StateShard {
  private readonly book = new ProcessBook();
  private readonly completed = new Set<string>();
  private readonly boots = new Map<string, BootAggregate>();
  private readonly kills = new Map<string, KillAggregate>();
  /** Boot facts whose command has not been accepted here yet. */
  private readonly early = new Map<string, Array<ProcessInstance | ProcessBootFailed>>();
  private live = true;

  constructor(
    private readonly clock: Clock = Date.now,
    private readonly directory?: ProcessDirectory,
  ) {}

  // ---- restore -------------------------------------------------------------------------

  /** Until `endRestore`, facts rebuild aggregates but publish nothing but overdue completions. */
  beginRestore(): void {
    this.live = false;
  }

  markCompleted(commandId: string): void {
    this.completed.add(commandId);
  }

  /** Live again; returns the completions whose deadline passed while nobody owned the shard. */
  endRestore(): Effect[] {
    this.live = true;
    return this.expire();
  }

  // ---- queries ---------------------------------------------------------------------------

  isCompleted(commandId: string): boolean {
    return this.completed.has(commandId);
  }

  openCommand(commandId: string): OpenCommand | undefined {
    return this.openCommands().find((c) => c.commandId === commandId);
  }

  openCommands(): OpenCommand[] {
    return describeOpen(this.boots.values(), this.kills.values());
  }

  /** The process table: what `ps` answers and `kpm.processes` holds for these sessions. */
  get table(): ProcessTable {
    return this.book.table;
  }

  /** The earliest kill deadline, for the timer that calls `expire`. */
  nextDeadline(): number | undefined {
    let next: number | undefined;
    for (const kill of this.kills.values())
      if (next === undefined || kill.deadline < next) next = kill.deadline;
    return next;
  }

  // ---- facts ----------------------------------------------------------------------------

  /** Applies one valid event; `time` is when it happened (its CloudEvent time). */
  apply(event: KpmEvent, time: number): Effect[] {
    const session = event.subject ?? '';
    const out: Effect[] = [];
    switch (event.type) {
      case CommandType.ps:
        return this.ps(event.id, session, event.data.query, time);
      case CommandType.flush:
        return this.flush(event.id, session, event.data.query, time);
      case CommandType.boot:
      case CommandType.kill:
      case CommandType.terminate:
      case CommandType.restart:
      case CommandType.logs:
        return this.publish([receivedBroadcast(event.id, event.type, session)]);
      case ProcessEventType.bootAccepted: {
        const { commandId, processes } = event.data;
        if (this.completed.has(commandId) || this.boots.has(commandId)) return [];
        const boot = new BootAggregate(commandId, session, time, processes);
        this.boots.set(commandId, boot);
        for (const fact of this.early.get(commandId) ?? []) this.offerBootFact(boot, fact);
        this.early.delete(commandId);
        out.push(
          ...this.publish([
            startBroadcast(commandId, CommandType.boot, session, `${processes.length} processes`),
          ]),
        );
        return [...out, ...this.settleBoot(boot)];
      }
      case ProcessEventType.processBooted:
        return this.booted(event.data.commandId, event.data.process);
      case ProcessEventType.processBootFailed:
        return this.bootFact(event.data.commandId, event.data);
      case ProcessEventType.killAccepted: {
        const { commandId, kind, stages, timeoutSeconds } = event.data;
        if (this.completed.has(commandId) || this.kills.has(commandId)) return [];
        const targets = stages.flat().map((uuid) => this.book.target(uuid, time));
        const kill = new KillAggregate(
          commandId,
          kind,
          session,
          time,
          time + timeoutSeconds * 1000,
          targets,
        );
        this.kills.set(commandId, kill);
        const reboot = kind === 'restart' ? this.early.get(commandId) : undefined;
        for (const fact of reboot ?? [])
          kill.rebooted('podUid' in fact ? { instance: fact } : { failure: fact });
        this.early.delete(commandId);
        const detail = `${targets.length} processes in ${stages.length} stages`;
        out.push(
          ...this.publish([startBroadcast(commandId, killCommandType(kind), session, detail)]),
        );
        return [...out, ...this.settleKill(kill)];
      }
      case ProcessEventType.logsFetched: {
        const { commandId, uuid, lines } = event.data;
        if (this.completed.has(commandId)) return [];
        const row = this.book.table.get(uuid);
        return this.complete({
          commandId,
          commandType: CommandType.logs,
          session,
          status: 'succeeded',
          processes: row ? [row] : [],
          logs: [{ uuid, lines }],
          acceptedAt: time,
        });
      }
      case ProcessEventType.commandRejected: {
        const { commandId, commandType, errors } = event.data;
        if (this.completed.has(commandId)) return [];
        this.boots.delete(commandId);
        this.kills.delete(commandId);
        return this.complete({
          commandId,
          commandType,
          session,
          status: 'rejected',
          processes: [],
          errors,
          acceptedAt: time,
        });
      }
      case TerminationType.processTerminated:
        return this.terminated(event.data);
      default:
        return [];
    }
  }

  /** A command state cannot read: drunc's COMMAND_RECEIVED still tells it arrived (the boot-worker answers it). */
  invalidCommand(commandId: string, commandType: string, session: string): Effect[] {
    return this.publish([receivedBroadcast(commandId, commandType, session)]);
  }

  /** Kills whose `timeoutSeconds` passed complete as timed_out with what is still pending. */
  expire(): Effect[] {
    const now = this.clock();
    const out: Effect[] = [];
    for (const kill of [...this.kills.values()]) {
      if (kill.deadline > now) continue;
      const noReboot = kill.kind === 'restart' && kill.pending.length === 0;
      const errors = noReboot
        ? [
            {
              message: `the process was not booted again within ${(kill.deadline - kill.acceptedAt) / 1000} s`,
            },
          ]
        : [];
      out.push(
        ...this.complete({
          ...killCompletion(kill, this.book.table),
          status: 'timed_out',
          pending: kill.pending,
          errors,
        }),
      );
    }
    return out;
  }

  // ---- internals ------------------------------------------------------------------------

  private ps(commandId: string, session: string, query: ProcessQuery, time: number): Effect[] {
    const out = this.publish([receivedBroadcast(commandId, CommandType.ps, session)]);
    if (this.completed.has(commandId)) return out;
    const processes = this.directory ? this.directory(query) : this.book.table.select(query);
    out.push(
      ...this.publish([startBroadcast(commandId, CommandType.ps, session, 'listing processes')]),
    );
    return [
      ...out,
      ...this.complete({
        commandId,
        commandType: CommandType.ps,
        session,
        status: 'succeeded',
        processes,
        acceptedAt: time,
      }),
    ];
  }

  /** Forgets DEAD processes of the command's session that the query selects. */
  private flush(commandId: string, session: string, query: ProcessQuery, time: number): Effect[] {
    const out = this.publish([receivedBroadcast(commandId, CommandType.flush, session)]);
    if (this.completed.has(commandId) || !this.live) return out;
    const flushed = this.book.table.flush({ ...query, session });
    out.push(
      ...this.publish([
        startBroadcast(commandId, CommandType.flush, session, 'forgetting DEAD processes'),
      ]),
    );
    out.push(...flushed.map((p): Effect => ({ kind: 'tombstone', uuid: p.uuid, session })));
    return [
      ...out,
      ...this.complete({
        commandId,
        commandType: CommandType.flush,
        session,
        status: 'succeeded',
        processes: flushed,
        acceptedAt: time,
      }),
    ];
  }

  private booted(commandId: string, instance: ProcessInstance): Effect[] {
    const { fresh, changed } = this.book.booted(instance, this.live);
    if (!fresh) return []; // a duplicate fact
    const out: Effect[] = changed ? [{ kind: 'process', instance: changed }] : [];
    return [...out, ...this.bootFact(commandId, instance)];
  }

  private bootFact(commandId: string, fact: ProcessInstance | ProcessBootFailed): Effect[] {
    if (this.completed.has(commandId)) return [];
    const boot = this.boots.get(commandId);
    if (boot) {
      this.offerBootFact(boot, fact);
      return this.settleBoot(boot);
    }
    const kill = this.kills.get(commandId);
    if (kill) {
      kill.rebooted('podUid' in fact ? { instance: fact } : { failure: fact });
      return this.settleKill(kill);
    }
    const facts = this.early.get(commandId) ?? [];
    facts.push(fact);
    this.early.set(commandId, facts);
    return [];
  }

  private offerBootFact(boot: BootAggregate, fact: ProcessInstance | ProcessBootFailed): void {
    if ('podUid' in fact) boot.offerBooted(fact);
    else boot.offerFailed(fact);
  }

  private terminated(t: ProcessTerminated): Effect[] {
    const { fresh, changed } = this.book.terminated(t, this.live);
    if (!fresh) return []; // the same pod's end, re-published
    const out: Effect[] = this.publish([terminationBroadcast(t)]);
    if (changed) out.push({ kind: 'process', instance: changed });
    for (const kill of [...this.kills.values()]) {
      if (kill.offer(t)) out.push(...this.settleKill(kill));
    }
    return out;
  }

  private settleBoot(boot: BootAggregate): Effect[] {
    if (!boot.done) return [];
    return this.complete(bootCompletion(boot, this.book.table));
  }

  private settleKill(kill: KillAggregate): Effect[] {
    if (!kill.done) return [];
    return this.complete(killCompletion(kill, this.book.table));
  }

  private complete(input: Omit<Parameters<typeof completionEffects>[0], 'completedAt'>): Effect[] {
    this.completed.add(input.commandId);
    this.boots.delete(input.commandId);
    this.kills.delete(input.commandId);
    this.early.delete(input.commandId);
    // Completions are published in a replay too: if the replay finds one due, it was never written.
    return completionEffects({ ...input, completedAt: this.clock() });
  }

  /** Side effects other than completions are published only live (a replay repeats history). */
  private publish(effects: Effect[]): Effect[] {
    return this.live ? effects : [];
  }
}
