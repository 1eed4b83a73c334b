/**
 * How a client command ends on the terminal: the completion (table or JSON) on stdout, a one-line
 * reason on stderr, and the exit code that says which (0 done, 1 failed/rejected, 2 usage,
 * 3 timed out).
 */
import {
  CommandError,
  CommandTimeoutError,
  InvalidCommandError,
  type CommandResult,
} from '@kpm/client';
import type { CommandCompleted } from '@kpm/contracts';
import { CliError, ExitCode } from './exit-codes';
import { usageError } from './options';
import { coloursFor, printJson } from './output';
import { formatCompletion } from './render/completion-view';

interface ReportOptions {
  /** `kpm kill`: how errors are prefixed. */
  command: string;
  json?: boolean;
  /** Columns of the process table of a completion. */
  columns?: readonly string[];
}

/** Prints what `send` produced, or the failed completion, and turns failures into exit codes. */
export async function report(
  options: ReportOptions,
  send: () => Promise<CommandResult>,
): Promise<CommandResult> {
  try {
    const result = await send();
    printResult(result, options);
    return result;
  } catch (error) {
    throw outcomeError(options, error);
  }
}

/** The completion, or (without `--wait`) that the command was sent and how to follow it. */
export function printResult(result: CommandResult, options: ReportOptions): void {
  if (result.completion) printCompletion(result.completion, options);
  else if (options.json) printJson(result);
  else {
    console.log(
      `sent ${options.command.replace(/^kpm /, '')} ${result.commandId} (session ${result.session}); follow it with: npx kpm tail --session ${result.session}`,
    );
  }
}

export function printCompletion(completion: CommandCompleted, options: ReportOptions): void {
  if (options.json) printJson(completion);
  else console.log(formatCompletion(completion, coloursFor(process.stdout), options.columns));
}

/** The error to exit with; a failed command's completion is printed first. */
export function outcomeError(options: ReportOptions, error: unknown): unknown {
  if (error instanceof InvalidCommandError) return usageError(options.command, error);
  if (!(error instanceof CommandError)) return error;
  if (error.completion) printCompletion(error.completion, options);
  const code = error instanceof CommandTimeoutError ? ExitCode.timedOut : ExitCode.failed;
  return new CliError(error.message, code);
}
