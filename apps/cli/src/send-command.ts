/** How boot, kill and terminate send their command: a fresh id, a progress bar while waiting. */
import { randomUUID } from 'node:crypto';
import type { CommandResult, ProcessManagerClient } from '@kpm/client';
import { withClient } from './cli-context';
import { report } from './command-outcome';
import type { WaitFlags } from './options';
import type { ProgressKind } from './progress/command-progress';
import { withProgress } from './progress/with-progress';

interface CommandToSend {
  /** `kill`: how errors are prefixed. */
  command: string;
  /** What the progress bar counts. */
  kind: ProgressKind;
  /** The session whose events feed the bar; absent when not known yet (kill by uuid). */
  session?: string;
  /** Processes the bar expects (a boot's). */
  total?: number;
}

/**
 * Sends a command under a fresh id and reports its outcome; while `--wait` waits for the
 * completion, a progress bar follows the session's events.
 */
export async function sendCommand(
  what: CommandToSend,
  flags: WaitFlags,
  send: (client: ProcessManagerClient, commandId: string) => Promise<CommandResult>,
): Promise<void> {
  const commandId = randomUUID();
  await withClient((client) => {
    const sendIt = () => send(client, commandId);
    const plan = { commandId, kind: what.kind, session: what.session, total: what.total };
    return report({ command: what.command, json: flags.json }, () =>
      flags.wait ? withProgress(client, plan, sendIt) : sendIt(),
    );
  });
}
