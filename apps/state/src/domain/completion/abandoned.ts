/**
 * When does a command the boot-worker gave up on complete, and with what (docs/design.md §3.3,
 * §6.6)?
 *
 * A valid command whose handling kept failing is dead-lettered after its retries; that dead
 * letter on `kpm.dead-letters` is the boot-worker's last word on it, and completes it at once
 * (unless it completed already), whatever of it was under way — a boot or kill still open is
 * forgotten with it: `failed`, with no processes and one error `the boot-worker gave up on it:
 * <reason>`.
 */
import type { CompletionReport } from '../completion-record';

/** A valid command the boot-worker dead-lettered after its retries: what it was, and why. */
export interface AbandonedCommand {
  commandId: string;
  commandType: string;
  reason: string;
}

/** The abandoned command's completion, from its dead letter at `time`. */
export function abandonedCompletion(
  abandoned: AbandonedCommand,
  session: string,
  time: number,
): CompletionReport {
  const { commandId, commandType, reason } = abandoned;
  return {
    commandId,
    commandType,
    session,
    status: 'failed',
    processes: [],
    errors: [{ message: `the boot-worker gave up on it: ${reason}` }],
    acceptedAt: time,
  };
}
