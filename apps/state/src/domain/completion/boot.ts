/**
 * When does a boot complete, and with what (docs/design.md §6.6)?
 *
 * Opened by `boot.accepted`; complete once every accepted uuid has a `process.booted` or a
 * `process.boot-failed` with the boot's command id (in any order, duplicates ignored). Then
 *   - `succeeded` when none failed,
 *   - `failed` with one error per failed process, `processes[i]: <name> (<uuid>) failed to boot:
 *     <code>: <message>`, in the boot command's order;
 * listing the processes that booted, as the table knows them at completion (one that died
 * since shows DEAD). A boot has no deadline of its own in the state: the boot-worker answers
 * every process, booted or failed.
 */
import { CommandType } from '@kpm/contracts';
import type { BootAggregate } from '../boot-aggregate';
import type { CompletionReport } from '../completion-record';
import type { ProcessTable } from '../process-table';

/** The boot's completion, or undefined while a process has no outcome yet. */
export function bootCompletion(
  boot: BootAggregate,
  table: ProcessTable,
): CompletionReport | undefined {
  if (!boot.allSettled) return undefined;
  const errors = boot.errors();
  return {
    commandId: boot.commandId,
    commandType: CommandType.boot,
    session: boot.session,
    status: errors.length === 0 ? 'succeeded' : 'failed',
    processes: boot.bootedInstances().map((p) => table.latestOf(p)),
    errors,
    acceptedAt: boot.acceptedAt,
  };
}
