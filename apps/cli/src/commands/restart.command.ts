import type { Command } from 'commander';
import { withClient } from '../cli-context';
import { report } from '../command-outcome';
import { CliError, ExitCode } from '../exit-codes';
import {
  addActingFlag,
  addQueryFlags,
  addWaitFlags,
  queryOf,
  timeoutMs,
  type ActingFlags,
  type QueryFlags,
  type WaitFlags,
} from '../options';

interface RestartFlags extends WaitFlags, QueryFlags, ActingFlags {}

export function registerRestartCommand(program: Command): void {
  const command = addActingFlag(
    addQueryFlags(
      program
        .command('restart')
        .description(
          'kill the processes the query selects and boot each again with the same uuid and spec',
        ),
    ),
    'restart as this user (default: KPM_USER, else you)',
  );
  addWaitFlags(command, 'give up waiting after this many seconds (default 300)').addHelpText(
    'after',
    `
Every selector given must match; every process selected is restarted (drunc's restart).

Examples:
  npx kpm restart --uuid 0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c --wait
  npx kpm restart --session run-42 --name '^ru-0[12]$' --wait`,
  );
  command.action((flags: RestartFlags) => restart(flags));
}

async function restart(flags: RestartFlags): Promise<void> {
  if (flags.session === undefined && !flags.uuid?.length) {
    throw new CliError(
      'restart: say what to restart: --uuid U (repeatable) or --session S with --name RE',
      ExitCode.usage,
    );
  }
  await withClient(
    (client) =>
      report({ command: 'restart', json: flags.json }, () =>
        client.restart(queryOf(flags), { wait: flags.wait, timeoutMs: timeoutMs(flags) }),
      ),
    flags.as,
  );
}
