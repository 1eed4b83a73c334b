/**
 * The commands the state service answers from its process table, as they arrive: `ps` lists
 * what a query selects, `flush` forgets the DEAD processes of the command's session that it
 * selects. Each is received, started and completed at once; when each completes, and with what,
 * is its rule (completion/ps.ts, completion/flush.ts).
 */
import { CommandType, type ProcessInstance, type ProcessQuery } from '@kpm/contracts';
import { receivedBroadcast, startBroadcast } from './broadcasts';
import type { CompletionReport } from './completion-record';
import { flushCompletion, flushQuery, flushRefusal } from './completion/flush';
import { psCompletion } from './completion/ps';
import type { Effect } from './effects';
import { cancelPendingRestarts } from './exit-actions';
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
  const report = psCompletion(ps, sorted);
  return [...received, ...succeed(memory, report, 'listing processes', [])];
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
  const refusal = flushRefusal(flush, memory.book.table, operators);
  if (refusal) return [...received, ...memory.complete(refusal)];
  const dead = memory.book.table.select(flushQuery(flush)).filter((p) => p.statusCode === 'DEAD');
  // A flushed process is not restarted: the user's flush wins over its scheduled restart.
  const cancelled = cancelPendingRestarts(
    memory,
    dead.map((p) => p.uuid),
    commandId,
  );
  const flushed = memory.book.flush(flushQuery(flush));
  const tombstones = flushed.map((p): Effect => ({ kind: 'tombstone', uuid: p.uuid, session }));
  const report = flushCompletion(flush, flushed);
  const effects = [...cancelled, ...tombstones];
  return [...received, ...succeed(memory, report, 'forgetting DEAD processes', effects)];
}

/** Started, then `effects`, then the command's (succeeded) completion. */
function succeed(
  memory: ShardMemory,
  report: CompletionReport,
  detail: string,
  effects: Effect[],
): Effect[] {
  const { commandId, commandType, session } = report;
  return [
    ...memory.publish(() => [startBroadcast(commandId, commandType, session, detail)]),
    ...effects,
    ...memory.complete(report),
  ];
}
