import type { Command } from 'commander';
import { withClient } from '../cli-context';
import { outcomeError } from '../command-outcome';
import { addQueryCommandFlags, queryOf, timeoutMs, type QueryCommandFlags } from '../options';
import { coloursFor, printJson } from '../output';
import { formatProcessTable } from '../render/process-table';

export function registerPsCommand(program: Command): void {
  const command = addQueryCommandFlags(
    program
      .command('ps')
      .description('list processes, RUNNING and DEAD, with exit codes (from the state service)'),
  );
  command.addHelpText(
    'after',
    '\nExamples:\n  npx kpm ps\n  npx kpm ps --session run-42 --name controller --json',
  );
  command.action((flags: QueryCommandFlags) => ps(flags));
}

async function ps(flags: QueryCommandFlags): Promise<void> {
  const processes = await withClient((client) =>
    client.ps(queryOf(flags), { timeoutMs: timeoutMs(flags) }).catch((error: unknown) => {
      throw outcomeError({ command: 'ps', json: flags.json }, error);
    }),
  );
  if (flags.json) printJson(processes);
  else console.log(formatProcessTable(processes, coloursFor(process.stdout)));
}
