import type { FieldError } from '@kpm/contracts';
import type { ProcessPod } from './process-pod';
import { describeMatches } from './query-resolver';

/** restart and logs act on one process: a query selecting none or several is refused, naming them. */
export function exactlyOne(
  selected: readonly ProcessPod[],
  command: 'restart' | 'logs',
): { ok: true; process: ProcessPod } | { ok: false; errors: FieldError[] } {
  if (selected.length === 1) return { ok: true, process: selected[0] };
  const message =
    selected.length === 0
      ? `selects no process; ${command} needs exactly one`
      : `selects ${selected.length} processes (${describeMatches(selected)}); ${command} needs exactly one`;
  return { ok: false, errors: [{ path: 'query', message }] };
}
