/**
 * Every CloudEvent `type` kpm reads or writes (docs/design.md §4–§5), grouped by the topic that
 * carries it, and the small vocabularies (statuses, roles, broadcast types) the data uses.
 *
 * Types end in `.v1`: a breaking change to a payload gets a new type, so old and new producers
 * can share a topic while consumers migrate.
 */

/** The values of a vocabulary object: `ValueOf<typeof CommandType>` is every command type. */
type ValueOf<T> = T[keyof T];

/** `kpm.commands`: what clients ask for. */
export const CommandType = {
  boot: 'daq.kpm.command.boot.v1',
  kill: 'daq.kpm.command.kill.v1',
  terminate: 'daq.kpm.command.terminate.v1',
  restart: 'daq.kpm.command.restart.v1',
  flush: 'daq.kpm.command.flush.v1',
  ps: 'daq.kpm.command.ps.v1',
  logs: 'daq.kpm.command.logs.v1',
} as const;
export type CommandType = ValueOf<typeof CommandType>;

/** `kpm.process-events`: what the boot-worker did. */
export const ProcessEventType = {
  bootAccepted: 'daq.kpm.boot.accepted.v1',
  processBooted: 'daq.kpm.process.booted.v1',
  processBootFailed: 'daq.kpm.process.boot-failed.v1',
  killAccepted: 'daq.kpm.kill.accepted.v1',
  logsFetched: 'daq.kpm.logs.fetched.v1',
  commandRejected: 'daq.kpm.command.rejected.v1',
} as const;
export type ProcessEventType = ValueOf<typeof ProcessEventType>;

/** `kpm.terminations`: what the watcher saw end. */
export const TerminationType = {
  processTerminated: 'daq.kpm.process.terminated.v1',
} as const;
export type TerminationType = ValueOf<typeof TerminationType>;

/** `kpm.completions`: exactly one per command id, from the state service. */
export const CompletionType = {
  commandCompleted: 'daq.kpm.command.completed.v1',
} as const;
export type CompletionType = ValueOf<typeof CompletionType>;

/** `kpm.broadcast`: drunc's broadcast model, from every service. */
export const BroadcastEventType = {
  broadcast: 'daq.kpm.broadcast.v1',
} as const;
export type BroadcastEventType = ValueOf<typeof BroadcastEventType>;

/**
 * `kpm.processes` (compacted, keyed by process uuid): the latest ProcessInstance
 * (docs/design.md §5.5, §11.1: the first sketch of the contract named no type for it).
 */
export const ProcessTableType = {
  processInstance: 'daq.kpm.process.instance.v1',
} as const;
export type ProcessTableType = ValueOf<typeof ProcessTableType>;

/** `kpm.dead-letters`: a record some consumer could not parse, kept with its raw bytes. */
export const DeadLetterType = {
  deadLetter: 'daq.kpm.dead-letter.v1',
} as const;
export type DeadLetterType = ValueOf<typeof DeadLetterType>;

export type EventType =
  | CommandType
  | ProcessEventType
  | TerminationType
  | CompletionType
  | BroadcastEventType
  | ProcessTableType
  | DeadLetterType;

/** drunc's BroadcastType names that kpm emits (COMMAND_EXECUTION_FAILED is kpm's addition). */
export const BROADCAST_TYPES = [
  'SERVER_READY',
  'SERVER_SHUTDOWN',
  'COMMAND_RECEIVED',
  'COMMAND_EXECUTION_START',
  'COMMAND_EXECUTION_SUCCESS',
  'COMMAND_EXECUTION_FAILED',
  'SUBPROCESS_STATUS_UPDATE',
  'DRUNC_EXCEPTION_RAISED',
  'UNHANDLED_EXCEPTION_RAISED',
  'TEXT_MESSAGE',
  'DEBUG',
] as const;
export type BroadcastType = (typeof BROADCAST_TYPES)[number];

/** drunc's ProcessInstance status codes. */
export const PROCESS_STATUSES = ['RUNNING', 'DEAD'] as const;
export type ProcessStatus = (typeof PROCESS_STATUSES)[number];

/** How a command ended, in its single completion. */
export const COMMAND_STATUSES = ['succeeded', 'failed', 'rejected', 'timed_out'] as const;
export type CommandStatus = (typeof COMMAND_STATUSES)[number];

/** Roles derived from drunc's tree ids (see roles.ts). */
export const ROLES = [
  'root-controller',
  'infrastructure-applications',
  'segment-controller',
  'application',
  'unknown',
] as const;
export type Role = (typeof ROLES)[number];

/** Which command a kill.accepted serves: all three kill pods in stages. */
export const KILL_KINDS = ['kill', 'terminate', 'restart'] as const;
export type KillKind = (typeof KILL_KINDS)[number];

/** Whether the watcher saw the end on its watch stream or found it by re-listing. */
export const DETECTION_SOURCES = ['watch', 'reconcile'] as const;
export type DetectionSource = (typeof DETECTION_SOURCES)[number];

/** Which kind of container failed first. */
export const CONTAINER_TYPES = ['init', 'main'] as const;
export type ContainerType = (typeof CONTAINER_TYPES)[number];
