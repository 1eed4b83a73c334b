/**
 * drunc's ProcessQuery over kpm's pods, with the contract's matcher (`processQueryMatcher`).
 * kill, restart and logs refuse an empty query before resolving one (EMPTY_QUERY).
 */
import { processQueryMatcher, type FieldError, type ProcessQuery } from '@kpm/contracts';
import type { ProcessPod } from '../cluster/process-pod';

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

/**
 * A command acts on one session, its subject: its facts and completion go to that session's
 * partition, whose state owner alone would see the terminations (docs/design.md §11.3). A query
 * selecting processes of another session is refused, naming them.
 */
export function otherSessions(
  selected: readonly ProcessPod[],
  subject: string,
): FieldError | undefined {
  const foreign = selected.filter((p) => p.session !== subject);
  if (foreign.length === 0) return undefined;
  return {
    path: 'query',
    message:
      `selects processes of other sessions than the command's subject ${JSON.stringify(subject)}: ` +
      `${describeMatches(foreign)}; a command acts on one session, send one per session`,
  };
}
