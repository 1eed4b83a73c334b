import type { Command } from 'commander';
import { CliError, ExitCode } from '../exit-codes';
import {
  addActingFlag,
  addGraceFlag,
  addQueryFlags,
  addWaitFlags,
  queryOf,
  type ActingFlags,
  type QueryFlags,
  type WaitFlags,
} from '../options';
import { sendCommand } from '../send-command';

interface KillFlags extends WaitFlags, QueryFlags, ActingFlags {
  grace?: number;
}

export function registerKillCommand(program: Command): void {
  const command = addActingFlag(
    addGraceFlag(
      addQueryFlags(
        program
          .command('kill')
          .description(
            "kill processes in drunc's shutdown order (applications first, infrastructure last)",
          ),
      ),
    ),
    'kill as this user (default: KPM_USER, else you)',
  );
  addWaitFlags(
    command,
    'the kill times out after this many seconds: exit 3 with the pending processes',
  ).addHelpText(
    'after',
    `
Every selector given must match. Without --name or --uuid the whole session is killed.

Examples:
  npx kpm kill --session run-42 --wait
  npx kpm kill --session run-42 --name '^ru-' --grace 5 --wait
  npx kpm kill --uuid 0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c`,
  );
  command.action((flags: KillFlags) => kill(flags));
}

async function kill(flags: KillFlags): Promise<void> {
  if (flags.session === undefined && !flags.uuid?.length) {
    throw new CliError(
      'kill: say what to kill: --session S (with --name RE to narrow it) or --uuid U',
      ExitCode.usage,
    );
  }
  const data = {
    query: queryOf(flags),
    gracePeriodSeconds: flags.grace,
    timeoutSeconds: flags.timeout,
  };
  await sendCommand(
    { command: 'kill', kind: 'kill', session: flags.session },
    flags,
    (client, id) => client.kill(data, { commandId: id, wait: flags.wait }),
  );
}
