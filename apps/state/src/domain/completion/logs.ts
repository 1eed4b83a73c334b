/**
 * When does a logs command complete, and with what (docs/design.md §6.4, §6.6)?
 *
 * The state service only receives the command; the boot-worker fetches the lines and answers
 * with one `logs.fetched`, which completes it at once (a second one of the same command id
 * completes nothing): `succeeded`, with the lines fetched in `logs` (`[{uuid, lines}]`, none when
 * the pod had none) and the process as the table knows it then — none when the table does not
 * know its uuid (flushed, or of another shard). A logs the boot-worker refused or gave up on
 * completes by those rules instead (rejected.ts, abandoned.ts).
 */
import { CommandType, type LogsFetched, type ProcessInstance } from '@kpm/contracts';
import type { CompletionReport } from '../completion-record';

/** The logs command's completion from its `logs.fetched`, at `time`, and the process's row. */
export function logsCompletion(
  fetched: LogsFetched,
  row: ProcessInstance | undefined,
  session: string,
  time: number,
): CompletionReport {
  const { commandId, uuid, lines } = fetched;
  return {
    commandId,
    commandType: CommandType.logs,
    session,
    status: 'succeeded',
    processes: row ? [row] : [],
    logs: [{ uuid, lines }],
    acceptedAt: time,
  };
}
