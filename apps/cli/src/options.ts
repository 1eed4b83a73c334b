/** Flags several commands share, their parsers, and the way a bad flag value is reported. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { InvalidCommandError } from '@kpm/client';
import { CliError, ExitCode } from './exit-codes';

export interface OutputFlags {
  json?: boolean;
}

export interface WaitFlags extends OutputFlags {
  wait?: boolean;
  timeout?: number;
}

/** `--grace 30`: a whole number of seconds. */
export function seconds(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number of seconds.');
  return Number(value);
}

/** `--tail 50`: a whole number above zero. */
export function count(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new InvalidArgumentError('must be a whole number above 0.');
  }
  return Number(value);
}

/** Repeatable flags (`--name a --name b`) collect into a list. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * Users on the command line have one meaning per flag: `--as <user>` is who acts (the user the
 * services check a session's owner against; default `KPM_USER`, else the login name), and
 * `--owner <user>` selects processes by their owner in a query. `--user` meant the one on some
 * commands and the other elsewhere; it is refused, naming the flag to use instead.
 */
export interface ActingFlags {
  as?: string;
}

/** `--as <user>`: act as this user; `help` says what acting means for the command. */
export function addActingFlag(command: Command, help: string): Command {
  return addRetiredUserFlag(command.option('--as <user>', help));
}

/** The selectors of drunc's ProcessQuery; every one given must match. */
export interface QueryFlags {
  session?: string;
  name?: string[];
  uuid?: string[];
  owner?: string;
}

export function addQueryFlags(command: Command): Command {
  return addRetiredUserFlag(
    command
      .option('--session <name>', "only this session's processes")
      .option('--name <regex>', 'only names matching this regex (unanchored; repeatable)', collect)
      .option('--uuid <uuid>', 'only this process (repeatable)', collect)
      .option('--owner <user>', 'only processes this user owns'),
  );
}

/** The old, ambiguous `--user`: hidden, parsed only so that `refuseRetiredUserFlag` can explain. */
function addRetiredUserFlag(command: Command): Command {
  if (command.options.some((option) => option.long === '--user')) return command;
  return command.addOption(new Option('--user <name>').hideHelp());
}

/** A usage error for `--user`, naming the flags that replace it on this command. */
export function refuseRetiredUserFlag(command: Command): void {
  if (command.opts<{ user?: string }>().user === undefined) return;
  const has = (flag: string) => command.options.some((option) => option.long === flag);
  const instead = [
    has('--as') ? '--as <user> to act as that user' : undefined,
    has('--owner') ? '--owner <user> to select the processes that user owns' : undefined,
  ].filter((text) => text !== undefined);
  throw new CliError(
    `${command.name()}: --user is no longer accepted (it meant "act as" on some commands and ` +
      `"filter by owner" on others): use ${instead.join(', or ')}`,
    ExitCode.usage,
  );
}

/** Flags of a query the state service answers (`ps`, `flush`): the selectors and a timeout. */
export interface QueryCommandFlags extends OutputFlags, QueryFlags {
  timeout?: number;
}

export function addQueryCommandFlags(command: Command): Command {
  return addJsonFlag(
    addQueryFlags(command).option(
      '--timeout <seconds>',
      'give up after this many seconds (default 30)',
      seconds,
    ),
  );
}

/** `--grace`, the seconds kill and terminate give each process before SIGKILL. */
export function addGraceFlag(command: Command): Command {
  return command.option(
    '--grace <seconds>',
    'grace period before SIGKILL (default: the service setting)',
    seconds,
  );
}

export function queryOf(flags: QueryFlags) {
  return { session: flags.session, uuids: flags.uuid, names: flags.name, user: flags.owner };
}

/** `--timeout` in seconds, as the client's wait in ms. */
export function timeoutMs(flags: { timeout?: number }): number | undefined {
  return flags.timeout === undefined ? undefined : flags.timeout * 1000;
}

export function addJsonFlag(command: Command): Command {
  return command.option('--json', 'print JSON for scripts instead of tables');
}

export function addWaitFlags(command: Command, timeoutHelp: string): Command {
  return addJsonFlag(
    command
      .option(
        '--wait',
        'wait for the completion and print it (exit 1 failed/rejected, 3 timed out)',
      )
      .option('--timeout <seconds>', timeoutHelp, seconds),
  );
}

/** The flag that sets each command field, so a refusal names what the user typed. */
const FLAGS: ReadonlyArray<[RegExp, string]> = [
  [/^(query\.)?session$/, '--session'],
  [/^query\.user$/, '--owner'],
  [/^user$/, '--as'],
  [/^query\.uuids/, '--uuid'],
  [/^query\.names/, '--name'],
  [/^gracePeriodSeconds$/, '--grace'],
  [/^timeoutSeconds$/, '--timeout'],
  [/^tailLines$/, '--tail'],
  [/^keepNamespace$/, '--keep-namespace'],
];

function flagOf(path: string): string {
  return FLAGS.find(([pattern]) => pattern.test(path))?.[1] ?? path;
}

/** A command the contract refused before sending is a usage error naming the flags. */
export function usageError(command: string, error: InvalidCommandError): CliError {
  const lines = error.errors.map((e) => `${flagOf(e.path)}: ${e.message}`);
  return new CliError(`${command}: ${lines.join('; ')}`, ExitCode.usage);
}
