/**
 * One drunc call, one kpm command, answered from its single completion: the retry rule picks the
 * command id (a retry finds the command it already sent), the command is published with that id
 * and its completion awaited — from the client's completion consumer or, should it have been
 * written before the consumer was positioned, from the state service's `/v1/commands/:id` — and
 * the caller's deadline bounds the wait: past it the answer says how far the command got.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CommandFailedError,
  CommandTimeoutError,
  InvalidCommandError,
  type CommandResult,
} from '@kpm/client';
import type { CommandCompleted } from '@kpm/contracts';
import { badRequest, stillRunning, unavailable } from '../errors/gateway-error';
import type { CommandLookupPort } from '../state-api';
import { commandIdOf, type CallIdentity } from './command-identity';
import { chooseCommand } from './retry-rule';

export interface CommandCall {
  rpc: string;
  identity: CallIdentity;
  /** Publishes the command with this id and awaits its completion (`wait: true`). */
  send: (commandId: string, timeoutMs: number) => Promise<CommandResult>;
  /** Has kpm moved on from what this completion left? (retry-rule.ts) */
  changedSince: (completion: CommandCompleted) => Promise<boolean>;
  /** Epoch ms by which the caller must have its answer. */
  answerByMs: number;
  /** kpm's field path → the drunc field the caller sent. */
  fieldOf: (path?: string) => string;
}

export interface RunnerSettings {
  retryWindowMs: number;
  viewPollMs: number;
}

type Outcome = { completion: CommandCompleted } | { missing: true };

export class CommandRunner {
  constructor(
    private readonly state: CommandLookupPort,
    private readonly settings: RunnerSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** The command's completion, whatever its status; refusals before publishing throw. */
  async run(call: CommandCall): Promise<CommandCompleted> {
    const choice = await chooseCommand(
      (window, attempt) => commandIdOf(call.identity, window, attempt),
      (commandId) => this.state.command(commandId),
      { nowMs: this.now(), windowMs: this.settings.retryWindowMs, changedSince: call.changedSince },
    );
    if (choice.kind === 'retry' && choice.lookup.state === 'completed') {
      return choice.lookup.completion;
    }
    return this.sendAndAwait(call, choice.commandId);
  }

  private async sendAndAwait(call: CommandCall, commandId: string): Promise<CommandCompleted> {
    const started = this.now();
    const budgetMs = call.answerByMs - started;
    if (budgetMs <= 0) throw stillRunning(call.rpc, commandId, 0, 'not sent: no time left');
    const stop = new AbortController();
    try {
      const outcome = await Promise.race([
        this.fromClient(call, commandId, budgetMs),
        this.fromView(commandId, stop.signal),
        sleep(budgetMs, { missing: true }, { signal: stop.signal }),
      ]);
      if ('completion' in outcome) return outcome.completion;
      throw stillRunning(call.rpc, commandId, this.now() - started, await this.progress(commandId));
    } finally {
      stop.abort();
    }
  }

  private async fromClient(
    call: CommandCall,
    commandId: string,
    budgetMs: number,
  ): Promise<Outcome> {
    try {
      const result = await call.send(commandId, budgetMs);
      return { completion: result.completion! };
    } catch (error) {
      if (error instanceof CommandFailedError && error.completion) {
        return { completion: error.completion };
      }
      if (error instanceof CommandTimeoutError) {
        return error.completion ? { completion: error.completion } : { missing: true };
      }
      if (error instanceof InvalidCommandError) {
        throw badRequest(
          call.rpc,
          error.errors.map((e) => ({ field: call.fieldOf(e.path), description: e.message })),
        );
      }
      throw unavailable(call.rpc, error as Error);
    }
  }

  /** A completion the client's consumer could not see (written before it was positioned). */
  private async fromView(commandId: string, signal: AbortSignal): Promise<Outcome> {
    for (;;) {
      try {
        await sleep(this.settings.viewPollMs, undefined, { signal });
      } catch {
        return new Promise<Outcome>(() => undefined); // stopped: another source answered
      }
      const found = await this.state.command(commandId).catch(() => undefined);
      if (found?.state === 'completed') return { completion: found.completion };
    }
  }

  private async progress(commandId: string): Promise<string> {
    const found = await this.state.command(commandId).catch((e: Error) => ({
      state: 'error' as const,
      message: e.message,
    }));
    if (found.state === 'open') return found.progress ?? 'open in kpm';
    if (found.state === 'unknown') return 'not yet taken up by kpm';
    if (found.state === 'error') return `the state service could not be asked: ${found.message}`;
    return `completed ${found.completion.status}`;
  }
}
