import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { cliSettings, invokingUser } from '../cli-context';
import { CliError, ExitCode } from '../exit-codes';
import {
  addActingFlag,
  addWaitFlags,
  timeoutMs,
  type ActingFlags,
  type WaitFlags,
} from '../options';
import { sendCommand } from '../send-command';
import { formatProblem, readSessionFile } from '../session-file/session-file';

interface BootFlags extends WaitFlags, ActingFlags {
  file: string;
  session?: string;
  allOrNothing?: boolean;
}

export function registerBootCommand(program: Command): void {
  const command = addActingFlag(
    program
      .command('boot')
      .description('boot the process tree of a session file (see examples/)')
      .requiredOption(
        '-f, --file <session.yaml>',
        'the session file: session, user, defaults, processes',
      )
      .option('--session <name>', "boot into this session instead of the file's")
      .option(
        '--all-or-nothing',
        'refuse the whole boot, creating nothing, when any process cannot land (the file may say allOrNothing: true)',
      ),
    "boot as this user instead of the file's (default: the file's, else KPM_USER, else you)",
  );
  addWaitFlags(command, 'give up waiting after this many seconds (default 180)').addHelpText(
    'after',
    `
Errors in the file name their line and field, e.g.
  examples/demo-session.yaml:14:11: processes[2].name: must be a process name of 1 to 253 characters …
A file the contract refuses exits with 1, as the services would refuse it.

Examples:
  npx kpm boot -f examples/demo-session.yaml --wait
  npx kpm boot -f examples/demo-session.yaml --session run-43 --json`,
  );
  command.action((flags: BootFlags) => boot(flags));
}

async function boot(flags: BootFlags): Promise<void> {
  if (!existsSync(flags.file)) {
    throw new CliError(`boot: --file: no such file: ${flags.file}`, ExitCode.usage);
  }
  const parsed = readSessionFile(flags.file, {
    session: flags.session,
    user: flags.as,
    defaultUser: invokingUser(),
    allOrNothing: flags.allOrNothing,
  });
  if (!parsed.ok) {
    const lines = parsed.problems.map((p) => `  ${formatProblem(flags.file, p)}`);
    throw new CliError(`boot: ${flags.file} is not a valid session file:\n${lines.join('\n')}`);
  }
  cliSettings(); // configuration errors before any connection
  const { session, processes } = parsed.boot;
  const what = { command: 'boot', kind: 'boot' as const, session, total: processes.length };
  await sendCommand(what, flags, (client, commandId) =>
    client.boot(parsed.boot, { commandId, wait: flags.wait, timeoutMs: timeoutMs(flags) }),
  );
}
