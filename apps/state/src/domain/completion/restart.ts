/**
 * When does a restart complete, and with what (docs/design.md §6.4, §6.6)?
 *
 * Opened by `kill.accepted` of kind `restart`, naming the old pod of each process the query
 * selected (drunc restarts every uuid its query matches). Each process is settled when
 *   - its old pod ended (as for a kill) **and** a `process.booted` with the restart's command id
 *     brought it back (in any order: the new pod may be seen before the old one's end), or
 *   - a `process.boot-failed` with the restart's command id says it could not be booted again:
 *     that settles it whether or not its old pod went (it will not come back).
 * Complete once every process is settled, as
 *   - `succeeded` with the new instances, as the table knows them at completion;
 *   - `failed` when any could not be booted again: one error per such process, `<name> (<uuid>)
 *     was stopped but failed to boot again: <code>: <message>`, the others back in `processes`,
 *     and the uuids whose old pod never ended in `pending`.
 * Still open at its deadline (as a kill's): `timed_out` with the instances back so far, every
 * old pod not ended in `pending`, and one error: `<n> of <N> processes still pending after <s>
 * s (…)` while old pods remain, else `the process was not booted again within <s> s` (one
 * process) or `<n> of <N> processes were not booted again within <s> s`.
 */
import { reportHead, type CompletionReport } from '../completion-record';
import { hasEnded, stillPending, type KillAggregate } from '../kill-aggregate';
import type { ProcessTable } from '../process-table';

/** The restart's completion, or undefined while a process is not settled. */
export function restartCompletion(
  kill: KillAggregate,
  table: ProcessTable,
): CompletionReport | undefined {
  const settled = kill.targetList().every((target) => {
    const reboot = kill.rebootOf(target.uuid);
    return reboot !== undefined && ('failure' in reboot || hasEnded(target));
  });
  if (!settled) return undefined;
  const processes = rebootedProcesses(kill, table);
  const errors = kill.rebootOutcomes.flatMap((r) => {
    if ('instance' in r) return [];
    const { failure } = r;
    const message = `${failure.name} (${failure.uuid}) was stopped but failed to boot again: ${failure.error.code}: ${failure.error.message}`;
    return [{ message }];
  });
  if (errors.length === 0) return { ...reportHead(kill), status: 'succeeded', processes };
  const pending = kill.pending;
  return {
    ...reportHead(kill),
    status: 'failed',
    processes,
    errors,
    ...(pending.length > 0 ? { pending } : {}),
  };
}

/** The restart at its deadline, still open. */
export function restartTimedOut(kill: KillAggregate, table: ProcessTable): CompletionReport {
  return {
    ...reportHead(kill),
    status: 'timed_out',
    processes: rebootedProcesses(kill, table),
    pending: kill.pending,
    errors: [{ message: timeoutMessage(kill) }],
  };
}

/** Each process booted again, as the table knows it now. */
function rebootedProcesses(kill: KillAggregate, table: ProcessTable) {
  return kill.rebootOutcomes.flatMap((r) => ('instance' in r ? [table.latestOf(r.instance)] : []));
}

/** Old pods still pending, or how many processes never came back. */
function timeoutMessage(kill: KillAggregate): string {
  if (kill.pending.length > 0) return stillPending(kill);
  const seconds = kill.allowed.totalMs / 1000;
  const total = kill.uuids.length;
  if (total === 1) return `the process was not booted again within ${seconds} s`;
  const back = kill.rebootOutcomes.length;
  return `${total - back} of ${total} processes were not booted again within ${seconds} s`;
}
