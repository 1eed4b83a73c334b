import {
  isEmptyProcessQuery,
  type ActingUser,
  type FieldError,
  type ProcessQuery,
} from '@kpm/contracts';
import { processOwnershipErrors } from '../boot/session-ownership';
import type { ProcessPods } from '../cluster/cluster';
import { EMPTY_QUERY } from './kill-handler';
import type { ProcessPod } from '../cluster/process-pod';
import { describeMatches, otherSessions, resolveQuery } from './query-resolver';

type One = { ok: true; process: ProcessPod } | { ok: false; errors: FieldError[] };
type Some = { ok: true; processes: ProcessPod[] } | { ok: false; errors: FieldError[] };

/**
 * The processes a restart's query selects — one or more, as drunc restarts every uuid its
 * query matches — or why not: an empty query, a process of a session another user owns, none,
 * or processes of another session than the command's.
 */
export async function selectSome(
  pods: Pick<ProcessPods, 'processes'>,
  query: ProcessQuery,
  acting: ActingUser,
  subject: string,
): Promise<Some> {
  if (isEmptyProcessQuery(query)) return { ok: false, errors: [EMPTY_QUERY] };
  const selected = resolveQuery(query, await pods.processes(query.session));
  const foreign = processOwnershipErrors(acting, selected);
  if (foreign.length > 0) return { ok: false, errors: foreign };
  if (selected.length === 0) {
    return { ok: false, errors: [{ path: 'query', message: 'selects no process to restart' }] };
  }
  const spanning = otherSessions(selected, subject);
  return spanning ? { ok: false, errors: [spanning] } : { ok: true, processes: selected };
}

/**
 * The one process the query of a logs command selects, or why there is not one: an empty query,
 * a process of a session another user owns, none or several.
 */
export async function selectOne(
  pods: Pick<ProcessPods, 'processes'>,
  query: ProcessQuery,
  command: 'logs',
  acting: ActingUser,
  subject: string,
): Promise<One> {
  if (isEmptyProcessQuery(query)) return { ok: false, errors: [EMPTY_QUERY] };
  const selected = resolveQuery(query, await pods.processes(query.session));
  const foreign = processOwnershipErrors(acting, selected);
  if (foreign.length > 0) return { ok: false, errors: foreign };
  const one = exactlyOne(selected, command);
  const spanning = one.ok ? otherSessions([one.process], subject) : undefined;
  return spanning ? { ok: false, errors: [spanning] } : one;
}

/** logs acts on one process: a query selecting none or several is refused, naming them. */
function exactlyOne(selected: readonly ProcessPod[], command: 'logs'): One {
  if (selected.length === 1) return { ok: true, process: selected[0] };
  const message =
    selected.length === 0
      ? `selects no process; ${command} needs exactly one`
      : `selects ${selected.length} processes (${describeMatches(selected)}); ${command} needs exactly one`;
  return { ok: false, errors: [{ path: 'query', message }] };
}
