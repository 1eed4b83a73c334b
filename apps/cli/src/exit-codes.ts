/** What the CLI's exit status means to scripts (docs/design.md §7.3). */
export const ExitCode = {
  done: 0,
  failed: 1,
  usage: 2,
  timedOut: 3,
} as const;

/** An error the CLI reports in one line and exits with, instead of a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.failed,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
