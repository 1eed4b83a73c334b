/**
 * What applying a fact asks the outside world to publish. The domain only describes records;
 * the Kafka adapter turns them into CloudEvents and writes them in one transaction with the
 * consumed offsets.
 */
import type {
  BroadcastType,
  CommandCompleted,
  CommandType,
  ProcessInstance,
  ProcessTerminated,
  RestartCommand,
  TerminateCommand,
} from '@kpm/contracts';

/** drunc's broadcast on `kpm.broadcast`; `id` derives from what caused it. */
export interface BroadcastEffect {
  kind: 'broadcast';
  id: string;
  broadcastType: BroadcastType;
  text: string;
  session: string;
  data?: Record<string, unknown>;
}

/** The single completion of a command on `kpm.completions`. */
interface CompletionEffect {
  kind: 'completion';
  completion: CommandCompleted;
}

/** The latest instance of a process on the compacted `kpm.processes`. */
interface ProcessEffect {
  kind: 'process';
  instance: ProcessInstance;
}

/** A flushed process: a tombstone on `kpm.processes`. */
interface TombstoneEffect {
  kind: 'tombstone';
  uuid: string;
  session: string;
}

/**
 * A process ended that no kill, terminate or restart asked to end (its pod was not being deleted
 * and no open kill aimed at it): drunc's "Process <name> has died" — DUNE's feeds (src/feeds)
 * write it to ERS; nothing goes to kpm's own topics.
 */
export interface DeathEffect {
  kind: 'death';
  termination: ProcessTerminated;
}

/**
 * A command the state service sends on its own under a process's exit policy (exit-actions.ts):
 * a `restart` of the process or a `terminate` of its session, on `kpm.commands`, with an id
 * derived from the end it answers.
 */
export interface CommandEffect {
  kind: 'command';
  id: string;
  commandType: typeof CommandType.restart | typeof CommandType.terminate;
  session: string;
  data: RestartCommand | TerminateCommand;
}

export type Effect =
  | BroadcastEffect
  | CompletionEffect
  | ProcessEffect
  | TombstoneEffect
  | DeathEffect
  | CommandEffect;
