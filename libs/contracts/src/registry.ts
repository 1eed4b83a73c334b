/**
 * Which data class, topic and session each CloudEvent type has: the one table parse, build and
 * the schema generator read, so a new type is added in one place.
 */
import {
  BootCommand,
  FlushCommand,
  KillCommand,
  LogsCommand,
  PsCommand,
  RestartCommand,
  TerminateCommand,
} from './commands/commands';
import type { ProcessQuery } from './commands/process-query';
import {
  BroadcastEventType,
  CommandType,
  CompletionType,
  DeadLetterType,
  ProcessEventType,
  ProcessTableType,
  TerminationType,
  type EventType,
} from './event-types';
import type { CloudEvent } from './envelope';
import {
  BootAccepted,
  CommandRejected,
  KillAccepted,
  LogsFetched,
  ProcessBootFailed,
  ProcessBooted,
} from './facts/process-events';
import { ProcessInstance } from './facts/process-instance';
import { ProcessTerminated } from './facts/termination';
import { Broadcast } from './outcomes/broadcast';
import { CommandCompleted } from './outcomes/completion';
import { DeadLetter } from './outcomes/dead-letter';
import type { PublicTopicId as TopicId } from './topics';
import type { ContractClass } from './validation/validate';

/** The data class of every type. */
export interface EventDataMap {
  [CommandType.boot]: BootCommand;
  [CommandType.kill]: KillCommand;
  [CommandType.terminate]: TerminateCommand;
  [CommandType.restart]: RestartCommand;
  [CommandType.flush]: FlushCommand;
  [CommandType.ps]: PsCommand;
  [CommandType.logs]: LogsCommand;
  [ProcessEventType.bootAccepted]: BootAccepted;
  [ProcessEventType.processBooted]: ProcessBooted;
  [ProcessEventType.processBootFailed]: ProcessBootFailed;
  [ProcessEventType.killAccepted]: KillAccepted;
  [ProcessEventType.logsFetched]: LogsFetched;
  [ProcessEventType.commandRejected]: CommandRejected;
  [TerminationType.processTerminated]: ProcessTerminated;
  [CompletionType.commandCompleted]: CommandCompleted;
  [BroadcastEventType.broadcast]: Broadcast;
  [ProcessTableType.processInstance]: ProcessInstance;
  [DeadLetterType.deadLetter]: DeadLetter;
}

/** A CloudEvent of one known type; a union over `EventType` narrows by `type`. */
export type KpmEvent<K extends EventType = EventType> = {
  [T in K]: CloudEvent<EventDataMap[T], T>;
}[K];

export interface TypeEntry<T> {
  dataClass: ContractClass<T & object>;
  topic: TopicId;
  /** One line for the schema and AsyncAPI documents. */
  summary: string;
  /** Whether `subject` (the session, the record key) must be present. */
  subjectRequired: boolean;
  /** The session the data names, which `subject` must equal when both are present. */
  sessionOf?: (data: T) => string | undefined;
}

const querySession = (d: { query?: ProcessQuery }) => d.query?.session;
const ownSession = (d: { session?: string }) => d.session;

/** Commands and process events are keyed by their session, so each needs a subject. */
const sessionKeyed =
  (topic: TopicId) =>
  <T>(
    dataClass: ContractClass<T & object>,
    summary: string,
    sessionOf?: (data: NoInfer<T>) => string | undefined,
  ): TypeEntry<T> => ({
    dataClass,
    topic,
    summary,
    subjectRequired: true,
    ...(sessionOf ? { sessionOf } : {}),
  });
const command = sessionKeyed('commands');
const processEvent = sessionKeyed('process-events');

export const TYPE_REGISTRY: { readonly [K in EventType]: TypeEntry<EventDataMap[K]> } = {
  [CommandType.boot]: command(BootCommand, 'Boot processes in a session (1–5000).', ownSession),
  [CommandType.kill]: command(
    KillCommand,
    'Kill the processes a query selects, in shutdown order.',
    querySession,
  ),
  [CommandType.terminate]: command(
    TerminateCommand,
    "Kill all of a session's processes, then delete its namespace.",
    ownSession,
  ),
  [CommandType.restart]: command(
    RestartCommand,
    'Kill the processes the query selects and boot each again with the same uuid.',
    querySession,
  ),
  [CommandType.flush]: command(FlushCommand, 'Forget DEAD processes.', querySession),
  [CommandType.ps]: command(PsCommand, 'List processes.', querySession),
  [CommandType.logs]: command(LogsCommand, 'Fetch the tail of one process log.', querySession),
  [ProcessEventType.bootAccepted]: processEvent(
    BootAccepted,
    'A boot passed its checks; its processes, uuids and roles.',
    ownSession,
  ),
  [ProcessEventType.processBooted]: processEvent(
    ProcessBooted,
    'A process pod is running.',
    (d) => d.process?.description?.metadata?.session,
  ),
  [ProcessEventType.processBootFailed]: processEvent(
    ProcessBootFailed,
    'A process of an accepted boot could not be started.',
    ownSession,
  ),
  [ProcessEventType.killAccepted]: processEvent(
    KillAccepted,
    'A kill, terminate or restart resolved to uuids in shutdown stages.',
    ownSession,
  ),
  [ProcessEventType.logsFetched]: processEvent(LogsFetched, 'The tail of one process log.'),
  [ProcessEventType.commandRejected]: processEvent(
    CommandRejected,
    'A command was refused; the errors name the fields.',
  ),
  [TerminationType.processTerminated]: {
    dataClass: ProcessTerminated,
    topic: 'terminations',
    summary: 'A pod ended; exit code, reason and the first failure.',
    subjectRequired: true,
    sessionOf: (d) => d.session,
  },
  [CompletionType.commandCompleted]: {
    dataClass: CommandCompleted,
    topic: 'completions',
    summary: 'The single completion of a command.',
    subjectRequired: true,
    sessionOf: (d) => d.session,
  },
  [BroadcastEventType.broadcast]: {
    dataClass: Broadcast,
    topic: 'broadcast',
    summary: 'A drunc broadcast message (SUBPROCESS_STATUS_UPDATE, SERVER_READY, …).',
    subjectRequired: false,
    sessionOf: (d) => d.emitter?.session,
  },
  [ProcessTableType.processInstance]: {
    dataClass: ProcessInstance,
    topic: 'processes',
    summary: 'The latest state of one process (key: its uuid).',
    subjectRequired: true,
    sessionOf: (d) => d.description?.metadata?.session,
  },
  [DeadLetterType.deadLetter]: {
    dataClass: DeadLetter,
    topic: 'dead-letters',
    summary: 'A record a consumer could not parse, with its raw bytes.',
    subjectRequired: false,
  },
};

export const EVENT_TYPES = Object.keys(TYPE_REGISTRY) as EventType[];

export function isEventType(type: string): type is EventType {
  return Object.prototype.hasOwnProperty.call(TYPE_REGISTRY, type);
}

/** The label value metrics use for a type kpm does not know: a sender's text never becomes a label. */
export const UNKNOWN_TYPE_LABEL = 'unknown';

/** `type` as a metric label value: itself when kpm knows it, else {@link UNKNOWN_TYPE_LABEL}. */
export function typeLabel(type: string): string {
  return isEventType(type) ? type : UNKNOWN_TYPE_LABEL;
}

/** The types a topic carries, e.g. `typesOfTopic('commands')`. */
export function typesOfTopic(topic: TopicId): EventType[] {
  return EVENT_TYPES.filter((t) => TYPE_REGISTRY[t].topic === topic);
}

/** A type's entry with its data type erased, for code that handles every type alike. */
export function typeEntry(type: EventType): TypeEntry<object> {
  return TYPE_REGISTRY[type] as unknown as TypeEntry<object>;
}
