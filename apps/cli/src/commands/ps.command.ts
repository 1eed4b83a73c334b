import type { Command } from 'commander';
import { withClient } from '../cli-context';
import { outcomeError } from '../command-outcome';
import {
  addJsonFlag,
  addQueryFlags,
  queryOf,
  seconds,
  timeoutMs,
  type OutputFlags,
  type QueryFlags,
} from '../options';
import { coloursFor, printJson } from '../output';
import { formatProcessTable } from '../render/process-table';

interface PsFlags extends OutputFlags, QueryFlags {
  timeout?: number;
}

export function registerPsCommand(program: Command): void {
  const command = addQueryFlags(
    program
      .command('ps')
      .description('list processes, RUNNING and DEAD, with exit codes (from the state service)'),
  ).option('--timeout <seconds>', 'give up after this many seconds (default 30)', seconds);
  addJsonFlag(command).addHelpText(
    'after',
    '\nExamples:\n  npx kpm ps\n  npx kpm ps --session run-42 --name controller --json',
  );
  command.action((flags: PsFlags) => ps(flags));
}

async function ps(flags: PsFlags): Promise<void> {
  const processes = await withClient((client) =>
    client.ps(queryOf(flags), { timeoutMs: timeoutMs(flags) }).catch((error: unknown) => {
      throw outcomeError({ command: 'ps', json: flags.json }, error);
    }),
  );
  if (flags.json) printJson(processes);
  else console.log(formatProcessTable(processes, coloursFor(process.stdout)));
}
