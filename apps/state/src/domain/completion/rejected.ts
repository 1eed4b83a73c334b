/**
 * When does a command the boot-worker refused complete, and with what (docs/design.md §6.6,
 * §6.7)?
 *
 * The boot-worker refuses a command before anything of it runs — one the contract refuses, or
 * one its configuration or the cluster's state does (§6.7) — with one `command.rejected`, which
 * completes it at once (a second one completes nothing), whatever the command's type (as
 * received, even one kpm does not know): `rejected`, with no processes and the boot-worker's
 * errors, each with its path.
 */
import type { CommandRejected } from '@kpm/contracts';
import type { CompletionReport } from '../completion-record';

/** The refused command's completion from its `command.rejected`, at `time`. */
export function rejectedCompletion(
  rejected: CommandRejected,
  session: string,
  time: number,
): CompletionReport {
  const { commandId, commandType, errors } = rejected;
  return {
    commandId,
    commandType,
    session,
    status: 'rejected',
    processes: [],
    errors,
    acceptedAt: time,
  };
}
