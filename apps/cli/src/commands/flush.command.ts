import type { Command } from 'commander';
import { withClient } from '../cli-context';
import { report } from '../command-outcome';
import {
  addJsonFlag,
  addQueryFlags,
  queryOf,
  seconds,
  timeoutMs,
  type OutputFlags,
  type QueryFlags,
} from '../options';

interface FlushFlags extends OutputFlags, QueryFlags {
  timeout?: number;
}

export function registerFlushCommand(program: Command): void {
  const command = addQueryFlags(
    program
      .command('flush')
      .description(
        'forget DEAD processes (all sessions unless --session); prints what was flushed',
      ),
  ).option('--timeout <seconds>', 'give up after this many seconds (default 30)', seconds);
  addJsonFlag(command).addHelpText('after', '\nExample:\n  npx kpm flush --session run-42');
  command.action((flags: FlushFlags) => flush(flags));
}

async function flush(flags: FlushFlags): Promise<void> {
  await withClient((client) =>
    report({ command: 'flush', json: flags.json }, () =>
      client.flush(queryOf(flags), { wait: true, timeoutMs: timeoutMs(flags) }),
    ),
  );
}
