/**
 * drunc's ProcessQuery over kpm's pods, with the contract's matcher (`processQueryMatcher`).
 * kill, restart and logs refuse an empty query before resolving one (EMPTY_QUERY).
 */
import { processQueryMatcher, type ProcessQuery } from '@kpm/contracts';
import type { ProcessPod } from './process-pod';

/** The processes the query selects, ordered by session and name. */
export function resolveQuery(query: ProcessQuery, processes: readonly ProcessPod[]): ProcessPod[] {
  const matches = processQueryMatcher(query);
  return processes
    .filter(matches)
    .sort((a, b) => a.session.localeCompare(b.session) || a.name.localeCompare(b.name));
}

/** `ru-01 (run-7), ru-02 (run-7)`: for messages that name what a query matched. */
export function describeMatches(processes: readonly ProcessPod[]): string {
  return processes.map((p) => `${p.name} (${p.session})`).join(', ');
}
