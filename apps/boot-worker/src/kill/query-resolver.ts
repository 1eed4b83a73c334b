/**
 * drunc's ProcessQuery over kpm's pods: every selector given must match (AND); names are regular
 * expressions matched anywhere in the name, as Python's `re.search` does. The contract has
 * already refused patterns that could backtrack catastrophically.
 */
import type { ProcessQuery } from '@kpm/contracts';
import type { ProcessPod } from './process-pod';

const given = <T>(list: T[] | undefined): list is T[] => Array.isArray(list) && list.length > 0;

/** No selector at all: matches nothing for kill, restart and logs (terminate exists for "all"). */
export function isEmptyQuery(query: ProcessQuery): boolean {
  return !query.session && !query.user && !given(query.uuids) && !given(query.names);
}

export function matchesQuery(process: ProcessPod, query: ProcessQuery, names: RegExp[]): boolean {
  if (query.session && process.session !== query.session) return false;
  if (query.user && process.user !== query.user) return false;
  if (given(query.uuids) && !query.uuids.includes(process.uuid)) return false;
  if (names.length > 0 && !names.some((pattern) => pattern.test(process.name))) return false;
  return true;
}

/** The processes the query selects, ordered by session and name. */
export function resolveQuery(query: ProcessQuery, processes: readonly ProcessPod[]): ProcessPod[] {
  if (isEmptyQuery(query)) return [];
  const names = (query.names ?? []).map((pattern) => new RegExp(pattern));
  return processes
    .filter((p) => matchesQuery(p, query, names))
    .sort((a, b) => a.session.localeCompare(b.session) || a.name.localeCompare(b.name));
}

/** `ru-01 (run-7), ru-02 (run-7)`: for messages that name what a query matched. */
export function describeMatches(processes: readonly ProcessPod[]): string {
  return processes.map((p) => `${p.name} (${p.session})`).join(', ');
}
