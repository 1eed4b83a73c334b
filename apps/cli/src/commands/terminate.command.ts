import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { invokingUser, withClient } from '../cli-context';
import { report } from '../command-outcome';
import { addWaitFlags, seconds, type WaitFlags } from '../options';
import { withProgress } from '../progress/with-progress';

interface TerminateFlags extends WaitFlags {
  session: string;
  user?: string;
  grace?: number;
  keepNamespace?: boolean;
}

export function registerTerminateCommand(program: Command): void {
  const command = program
    .command('terminate')
    .description(
      "kill every process of a session in drunc's shutdown order, then delete its namespace",
    )
    .requiredOption('--session <name>', 'the session to terminate')
    .option('--user <name>', 'terminate as this user (default: you)')
    .option(
      '--grace <seconds>',
      'grace period before SIGKILL (default: the service setting)',
      seconds,
    )
    .option('--keep-namespace', 'kill the processes but keep the namespace');
  addWaitFlags(
    command,
    'the terminate times out after this many seconds: exit 3 with the pending processes',
  ).addHelpText('after', '\nExample:\n  npx kpm terminate --session run-42 --wait');
  command.action((flags: TerminateFlags) => terminate(flags));
}

async function terminate(flags: TerminateFlags): Promise<void> {
  const commandId = randomUUID();
  const data = {
    session: flags.session,
    user: flags.user ?? invokingUser(),
    gracePeriodSeconds: flags.grace,
    timeoutSeconds: flags.timeout,
    keepNamespace: flags.keepNamespace,
  };
  await withClient((client) => {
    const send = () => client.terminate(data, { commandId, wait: flags.wait });
    const plan = { commandId, kind: 'kill' as const, session: flags.session };
    return report({ command: 'terminate', json: flags.json }, () =>
      flags.wait ? withProgress(client, plan, send) : send(),
    );
  });
}
