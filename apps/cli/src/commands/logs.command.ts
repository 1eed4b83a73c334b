import type { Command } from 'commander';
import { withClient } from '../cli-context';
import { outcomeError } from '../command-outcome';
import { CliError, ExitCode } from '../exit-codes';
import {
  addActingFlag,
  addJsonFlag,
  collect,
  count,
  seconds,
  timeoutMs,
  type ActingFlags,
  type OutputFlags,
} from '../options';
import { printJson } from '../output';

interface LogsFlags extends OutputFlags, ActingFlags {
  uuid?: string;
  session?: string;
  name?: string[];
  tail?: number;
  timeout?: number;
}

export function registerLogsCommand(program: Command): void {
  const command = program
    .command('logs')
    .description("the last lines of one process's log")
    .option('--uuid <uuid>', 'the process (see npx kpm ps)')
    .option('--session <name>', 'with --name: the session of the process')
    .option('--name <regex>', 'with --session: a regex matching exactly one process name', collect)
    .option('--tail <lines>', 'how many lines (default 100, at most 10000)', count)
    .option('--timeout <seconds>', 'give up after this many seconds (default 30)', seconds);
  addJsonFlag(
    addActingFlag(command, 'read as this user (default: KPM_USER, else you)'),
  ).addHelpText(
    'after',
    "\nExamples:\n  npx kpm logs --uuid 0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c --tail 20\n  npx kpm logs --session run-42 --name '^ru-01$'",
  );
  command.action((flags: LogsFlags) => logs(flags));
}

async function logs(flags: LogsFlags): Promise<void> {
  if (flags.uuid === undefined && (flags.session === undefined || !flags.name?.length)) {
    throw new CliError(
      'logs: say whose logs: --uuid U, or --session S with --name RE',
      ExitCode.usage,
    );
  }
  const query = {
    session: flags.session,
    uuids: flags.uuid === undefined ? undefined : [flags.uuid],
    names: flags.name,
  };
  const found = await withClient(
    (client) =>
      client
        .logs(query, { tailLines: flags.tail, timeoutMs: timeoutMs(flags) })
        .catch((error: unknown) => {
          throw outcomeError({ command: 'logs', json: flags.json }, error);
        }),
    flags.as,
  );
  if (flags.json) printJson(found);
  else for (const { lines } of found) for (const line of lines) console.log(line);
}
