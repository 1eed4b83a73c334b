/**
 * When does a kill or a terminate complete, and with what (docs/design.md §6.4, §6.6)?
 * (A terminate is a kill of every process of its session; the namespace is the boot-worker's.)
 *
 * Opened by `kill.accepted`, which names the pod of each targeted uuid; complete once every
 * targeted pod has ended — a termination of that pod, seen before or after the acceptance, or
 * its end recorded before its process was flushed — as `succeeded`, listing each targeted
 * process DEAD with its pod's exit code.
 *
 * Still open at its deadline (`timeoutSeconds` after the acceptance, moved on by each ending
 * under a progress timeout): `timed_out`, with the uuids still `pending` and one error
 * `<n> of <N> processes still pending after <s> s (<m> ended)` (`, none ended in the last <p> s`
 * under a progress timeout).
 */
import type { ProcessInstance } from '@kpm/contracts';
import { reportHead, type CompletionReport } from '../completion-record';
import { stillPending, type KillAggregate } from '../kill-aggregate';
import { deadInstance, instanceFromTermination, type ProcessTable } from '../process-table';

/** The kill's completion, or undefined while a targeted pod has not ended. */
export function killCompletion(
  kill: KillAggregate,
  table: ProcessTable,
): CompletionReport | undefined {
  if (!kill.allEnded) return undefined;
  return { ...reportHead(kill), status: 'succeeded', processes: targetedProcesses(kill, table) };
}

/** The kill at its deadline, still open. */
export function killTimedOut(kill: KillAggregate, table: ProcessTable): CompletionReport {
  return {
    ...reportHead(kill),
    status: 'timed_out',
    processes: targetedProcesses(kill, table),
    pending: kill.pending,
    errors: [{ message: stillPending(kill) }],
  };
}

/** Each targeted process, DEAD with its exit code where its pod ended (a flushed one is gone). */
function targetedProcesses(kill: KillAggregate, table: ProcessTable): ProcessInstance[] {
  return kill.targetList().flatMap((target): ProcessInstance[] => {
    const row = table.get(target.uuid);
    const ended = target.ended;
    if (!ended) return row ? [row] : [];
    if (!row) return [instanceFromTermination(ended)];
    if (row.podUid === ended.podUid && row.statusCode === 'DEAD') return [row];
    return [deadInstance(row, ended)];
  });
}
