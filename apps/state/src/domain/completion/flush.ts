/**
 * When does a flush complete, and with what (docs/design.md §6.6)?
 *
 * At once, as the state service receives it live (a flush repeated with the same command id is
 * answered once). It selects, with its query, processes of its own session only; then
 *   - `rejected` when any it selects belongs to a session another user owns (the owner a
 *     process's facts name), with one error at `query` naming the owner — unless its user is an
 *     operator (`security.operatorUsers`); nothing is forgotten;
 *   - else `succeeded`, listing the DEAD processes it selects, which it forgets: each leaves the
 *     table with a tombstone on `kpm.processes`, and its pods are forgotten with it (a late fact
 *     about one does not bring it back). RUNNING processes it selects stay.
 */
import {
  CommandType,
  foreignSessionErrors,
  type ProcessInstance,
  type ProcessQuery,
} from '@kpm/contracts';
import type { CompletionReport } from '../completion-record';
import type { ProcessTable } from '../process-table';

/** A flush as it arrived: its id, session, query, acting user and CloudEvent time. */
export interface FlushCommand {
  commandId: string;
  session: string;
  query: ProcessQuery;
  user?: string;
  time: number;
}

/** What the flush selects: its query, within its own session. */
export function flushQuery(flush: FlushCommand): ProcessQuery {
  return { ...flush.query, session: flush.session };
}

/**
 * The flush's refusal, naming the owners other than its user of the processes it selects, or
 * undefined when it may forget them.
 */
export function flushRefusal(
  flush: FlushCommand,
  table: ProcessTable,
  operators: readonly string[],
): CompletionReport | undefined {
  const { session, user = '' } = flush;
  const selected = table.select(flushQuery(flush));
  const owners = selected.map((p) => ({ session, owner: p.description.metadata.user }));
  const errors = foreignSessionErrors({ user, operators }, owners, 'query');
  if (errors.length === 0) return undefined;
  return { ...head(flush), status: 'rejected', processes: [], errors };
}

/** The flush's completion once it forgot `forgotten`, the DEAD processes it selected. */
export function flushCompletion(
  flush: FlushCommand,
  forgotten: ProcessInstance[],
): CompletionReport {
  return { ...head(flush), status: 'succeeded', processes: forgotten };
}

function head(
  flush: FlushCommand,
): Pick<CompletionReport, 'commandId' | 'commandType' | 'session' | 'acceptedAt'> {
  return {
    commandId: flush.commandId,
    commandType: CommandType.flush,
    session: flush.session,
    acceptedAt: flush.time,
  };
}
