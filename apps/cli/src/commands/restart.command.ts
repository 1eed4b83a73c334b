import type { Command } from 'commander';
import { withClient } from '../cli-context';
import { report } from '../command-outcome';
import { addWaitFlags, timeoutMs, type WaitFlags } from '../options';

interface RestartFlags extends WaitFlags {
  uuid: string;
}

export function registerRestartCommand(program: Command): void {
  const command = program
    .command('restart')
    .description('kill one process and boot it again with the same uuid and spec')
    .requiredOption('--uuid <uuid>', 'the process to restart (see npx kpm ps)');
  addWaitFlags(command, 'give up waiting after this many seconds (default 300)').addHelpText(
    'after',
    '\nExample:\n  npx kpm restart --uuid 0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c --wait',
  );
  command.action((flags: RestartFlags) => restart(flags));
}

async function restart(flags: RestartFlags): Promise<void> {
  await withClient((client) =>
    report({ command: 'restart', json: flags.json }, () =>
      client.restart({ uuids: [flags.uuid] }, { wait: flags.wait, timeoutMs: timeoutMs(flags) }),
    ),
  );
}
