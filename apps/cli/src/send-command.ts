/** How boot, kill and terminate send their command: a fresh id, a progress bar while waiting. */
import { randomUUID } from 'node:crypto';
import type { CommandResult, ProcessManagerClient } from '@kpm/client';
import { explainKafkaError, openClient } from './cli-context';
import { outcomeError, printResult } from './command-outcome';
import type { ActingFlags, WaitFlags } from './options';
import type { ProgressKind } from './progress/command-progress';
import { showProgress } from './progress/with-progress';

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
 * Sends a command under a fresh id and reports its outcome: a client, a progress bar while
 * `--wait` waits for the completion (fed by the session's events), the command, its outcome on
 * the terminal and in the exit code.
 */
export async function sendCommand(
  what: CommandToSend,
  flags: WaitFlags & ActingFlags,
  send: (client: ProcessManagerClient, commandId: string) => Promise<CommandResult>,
): Promise<void> {
  const commandId = randomUUID();
  const options = { command: what.command, json: flags.json };
  const { client, brokers } = openClient(flags.as);
  const plan = { commandId, kind: what.kind, session: what.session, total: what.total };
  let progress: { stop(): Promise<void> } | undefined;
  try {
    if (flags.wait) progress = await showProgress(client, plan);
    printResult(await send(client, commandId), options);
  } catch (error) {
    throw outcomeError(options, explainKafkaError(error, brokers));
  } finally {
    await progress?.stop();
    await client.close();
  }
}
