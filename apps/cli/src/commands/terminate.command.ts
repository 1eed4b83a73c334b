import type { Command } from 'commander';
import { invokingUser } from '../cli-context';
import {
  addActingFlag,
  addGraceFlag,
  addWaitFlags,
  type ActingFlags,
  type WaitFlags,
} from '../options';
import { sendCommand } from '../send-command';

interface TerminateFlags extends WaitFlags, ActingFlags {
  session: string;
  grace?: number;
  keepNamespace?: boolean;
}

export function registerTerminateCommand(program: Command): void {
  const command = addGraceFlag(
    addActingFlag(
      program
        .command('terminate')
        .description(
          "kill every process of a session in drunc's shutdown order, then delete its namespace",
        )
        .requiredOption('--session <name>', 'the session to terminate'),
      'terminate as this user (default: KPM_USER, else you)',
    ),
  ).option('--keep-namespace', 'kill the processes but keep the namespace');
  addWaitFlags(
    command,
    'the terminate times out after this many seconds: exit 3 with the pending processes',
  ).addHelpText('after', '\nExample:\n  npx kpm terminate --session run-42 --wait');
  command.action((flags: TerminateFlags) => terminate(flags));
}

async function terminate(flags: TerminateFlags): Promise<void> {
  const data = {
    session: flags.session,
    user: flags.as ?? invokingUser(),
    gracePeriodSeconds: flags.grace,
    timeoutSeconds: flags.timeout,
    keepNamespace: flags.keepNamespace,
  };
  const what = { command: 'terminate', kind: 'kill' as const, session: flags.session };
  await sendCommand(what, flags, (client, commandId) =>
    client.terminate(data, { commandId, wait: flags.wait }),
  );
}
