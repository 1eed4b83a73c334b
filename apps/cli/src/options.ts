/** Flags several commands share, their parsers, and the way a bad flag value is reported. */
import { InvalidArgumentError, type Command } from 'commander';
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

/** The selectors of drunc's ProcessQuery; every one given must match. */
export interface QueryFlags {
  session?: string;
  name?: string[];
  uuid?: string[];
  user?: string;
}

export function addQueryFlags(command: Command): Command {
  return command
    .option('--session <name>', "only this session's processes")
    .option('--name <regex>', 'only names matching this regex (unanchored; repeatable)', collect)
    .option('--uuid <uuid>', 'only this process (repeatable)', collect)
    .option('--user <name>', "only this user's processes");
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
  return { session: flags.session, uuids: flags.uuid, names: flags.name, user: flags.user };
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
  [/^(query\.)?user$/, '--user'],
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
