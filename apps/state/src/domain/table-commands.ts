/**
 * The commands the state service answers from its process table: `ps` lists what a query
 * selects, `flush` forgets the DEAD processes of the command's session that it selects. Each is
 * received, started and completed at once. A flush selecting processes of a session another
 * user owns (their facts name the owner) is refused, naming the owner, unless its user is an
 * operator.
 */
import {
  CommandType,
  foreignSessionErrors,
  type FieldError,
  type ProcessInstance,
  type ProcessQuery,
} from '@kpm/contracts';
import { receivedBroadcast, startBroadcast } from './broadcasts';
import type { Effect } from './effects';
import { psPage } from './ps-pages';
import type { ShardMemory } from './shard-memory';

/** Answers ps across the table(s) this replica knows; a lone shard answers from its own. */
export type ProcessDirectory = (query: ProcessQuery) => ProcessInstance[];

/** A ps or flush as it arrived: its id, session, query and CloudEvent time; ps's page. */
export interface TableCommand {
  commandId: string;
  session: string;
  query: ProcessQuery;
  /** The acting user of a flush. */
  user?: string;
  time: number;
  limit?: number;
  cursor?: string;
}

export function answerPs(
  memory: ShardMemory,
  directory: ProcessDirectory | undefined,
  ps: TableCommand,
): Effect[] {
  const received = memory.publish(() => [
    receivedBroadcast(ps.commandId, CommandType.ps, ps.session, ps.user),
  ]);
  if (memory.completed.has(ps.commandId)) return received;
  const sorted = directory ? directory(ps.query) : memory.book.table.select(ps.query);
  const page = psPage(sorted, ps.cursor, ps.limit);
  const detail = 'listing processes';
  return [...received, ...succeed(memory, ps, CommandType.ps, detail, page.processes, [], page)];
}

/** Forgets DEAD processes of the command's session that the query selects. */
export function flushDead(
  memory: ShardMemory,
  flush: TableCommand,
  operators: readonly string[],
): Effect[] {
  const { commandId, session } = flush;
  const received = memory.publish(() => [
    receivedBroadcast(commandId, CommandType.flush, session, flush.user),
  ]);
  if (memory.completed.has(commandId) || !memory.live) return received;
  const foreign = foreignFlushErrors(memory, flush, operators);
  if (foreign.length > 0) return [...received, ...refuse(memory, flush, foreign)];
  const flushed = memory.book.flush({ ...flush.query, session });
  const tombstones = flushed.map((p): Effect => ({ kind: 'tombstone', uuid: p.uuid, session }));
  const detail = 'forgetting DEAD processes';
  return [...received, ...succeed(memory, flush, CommandType.flush, detail, flushed, tombstones)];
}

/** The owners, other than the flush's user, of the processes it selects in its session. */
function foreignFlushErrors(
  memory: ShardMemory,
  flush: TableCommand,
  operators: readonly string[],
): FieldError[] {
  const { session, user = '' } = flush;
  const selected = memory.book.table.select({ ...flush.query, session });
  const owners = selected.map((p) => ({ session, owner: p.description.metadata.user }));
  return foreignSessionErrors({ user, operators }, owners, 'query');
}

function refuse(memory: ShardMemory, command: TableCommand, errors: FieldError[]): Effect[] {
  const { commandId, session, time } = command;
  return memory.complete({
    commandId,
    commandType: CommandType.flush,
    session,
    status: 'rejected',
    processes: [],
    errors,
    acceptedAt: time,
  });
}

/** Started, then `effects`, then the succeeded completion listing `processes`. */
function succeed(
  memory: ShardMemory,
  command: TableCommand,
  commandType: CommandType,
  detail: string,
  processes: ProcessInstance[],
  effects: Effect[],
  paging?: { more: boolean },
): Effect[] {
  const { commandId, session, time } = command;
  return [
    ...memory.publish(() => [startBroadcast(commandId, commandType, session, detail)]),
    ...effects,
    ...memory.complete({
      commandId,
      commandType,
      session,
      status: 'succeeded',
      processes,
      acceptedAt: time,
      ...(paging ? { paging } : {}),
    }),
  ];
}
