/**
 * Errors a client user can act on. Each names the command (type and id), the session and, for
 * rejections, every field with its reason, so a log line alone tells what went wrong.
 */
import { commandName, type CommandCompleted, type FieldError } from '@kpm/contracts';

/** Re-exported: clients name commands as the services do. */
export { commandName };

/** `processes[0].name: must be a process name …; user: …` */
export function describeFieldErrors(errors: ReadonlyArray<{ path?: string; message: string }>) {
  return errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
}

/** The command failed the contract's checks before anything was published. */
export class InvalidCommandError extends Error {
  constructor(
    readonly commandType: string,
    readonly errors: readonly FieldError[],
  ) {
    super(`invalid ${commandName(commandType)} command: ${describeFieldErrors(errors)}`);
    this.name = 'InvalidCommandError';
  }
}

/** A command that did not succeed; `completion` is its single completion when there is one. */
export abstract class CommandError extends Error {
  constructor(
    message: string,
    readonly commandId: string,
    readonly commandType: string,
    readonly completion?: CommandCompleted,
  ) {
    super(message);
  }
}

const label = (type: string, id: string, session: string) =>
  `${commandName(type)} command ${id} (session ${session})`;

/** The completion says `rejected` (bad input) or `failed` (e.g. a pod could not be created). */
export class CommandFailedError extends CommandError {
  constructor(completion: CommandCompleted) {
    const errors = completion.errors ?? [];
    const why = errors.length > 0 ? `: ${describeFieldErrors(errors)}` : '';
    const verb = completion.status === 'rejected' ? 'was rejected' : 'failed';
    super(
      `${label(completion.commandType, completion.commandId, completion.session)} ${verb}${why}`,
      completion.commandId,
      completion.commandType,
      completion,
    );
    this.name = 'CommandFailedError';
  }
}

/**
 * No outcome in time: either the state service completed the command as `timed_out` (then
 * `completion.pending` lists the processes without a termination), or no completion arrived
 * within the client's own wait.
 */
export class CommandTimeoutError extends CommandError {
  constructor(
    commandId: string,
    commandType: string,
    session: string,
    readonly waitedMs: number,
    completion?: CommandCompleted,
  ) {
    const pending = completion?.pending ?? [];
    super(
      completion
        ? `${label(commandType, commandId, session)} timed out: ${pending.length} process(es) still pending (${pending.join(', ')})`
        : `${label(commandType, commandId, session)}: no completion within ${Math.round(waitedMs / 1000)} s (is the state service running? try: npx kpm services status)`,
      commandId,
      commandType,
      completion,
    );
    this.name = 'CommandTimeoutError';
  }
}

/** The shared completion consumer stopped (broker unreachable past its retries). */
export class CompletionFeedError extends Error {
  constructor(cause: Error) {
    super(`the completion consumer stopped: ${cause.message}`, { cause });
    this.name = 'CompletionFeedError';
  }
}
