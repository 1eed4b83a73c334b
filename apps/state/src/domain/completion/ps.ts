/**
 * When does a ps complete, and with what (docs/design.md §6.6)?
 *
 * At once, as the state service receives it (a ps repeated with the same command id is
 * answered once): `succeeded`, listing the page of what its query selects — across the tables
 * this replica knows, in their order (session, name, uuid) — that follows its cursor, at most
 * `limit` processes (ps-pages.ts). `paging.more` says more processes follow the page; the record
 * then carries the cursor of its last process (`nextCursor`, completion-record.ts). A ps never
 * fails: a query that selects nothing completes with no processes.
 */
import { CommandType, type ProcessInstance } from '@kpm/contracts';
import type { CompletionReport } from '../completion-record';
import { psPage } from '../ps-pages';

/** A ps as it arrived: its id, session, CloudEvent time and page. */
export interface PsCommand {
  commandId: string;
  session: string;
  time: number;
  limit?: number;
  cursor?: string;
}

/** The ps's completion: the page of `sorted` (what its query selects, in order) after its cursor. */
export function psCompletion(ps: PsCommand, sorted: readonly ProcessInstance[]): CompletionReport {
  const page = psPage(sorted, ps.cursor, ps.limit);
  return {
    commandId: ps.commandId,
    commandType: CommandType.ps,
    session: ps.session,
    status: 'succeeded',
    processes: page.processes,
    acceptedAt: ps.time,
    paging: { more: page.more },
  };
}
