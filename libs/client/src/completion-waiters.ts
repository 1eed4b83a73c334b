/**
 * The commands this client is waiting on, fed by its one shared completion consumer. A command
 * is registered *before* it is published, so its completion can never arrive unexpected; other
 * clients' completions on the same topic are ignored.
 */
import type { CommandCompleted } from '@kpm/contracts';

interface Waiter {
  resolve(completion: CommandCompleted): void;
  reject(error: Error): void;
}

export class CompletionWaiters {
  private readonly waiters = new Map<string, Waiter>();

  get size(): number {
    return this.waiters.size;
  }

  has(commandId: string): boolean {
    return this.waiters.has(commandId);
  }

  /**
   * Promises the completion of `commandId`; call before publishing the command. The promise
   * holds the completion even if it arrives before anyone awaits it.
   */
  register(commandId: string): Promise<CommandCompleted> {
    if (this.waiters.has(commandId)) {
      throw new Error(`command ${commandId} is already awaited: command ids must be unique`);
    }
    const completion = new Promise<CommandCompleted>((resolve, reject) =>
      this.waiters.set(commandId, { resolve, reject }),
    );
    completion.catch(() => undefined); // a waiter dropped before anyone awaited it is no crash
    return completion;
  }

  /** Hands a completion to its waiter; returns false for commands this client does not await. */
  deliver(completion: CommandCompleted): boolean {
    const waiter = this.waiters.get(completion.commandId);
    if (!waiter) return false;
    this.waiters.delete(completion.commandId);
    waiter.resolve(completion); // a redelivered completion finds no waiter and is ignored
    return true;
  }

  /** Stops waiting for one command (timed out, or its publish failed). */
  forget(commandId: string, error: Error): void {
    const waiter = this.waiters.get(commandId);
    this.waiters.delete(commandId);
    waiter?.reject(error);
  }

  /** Every waiter fails with `error` (the completion consumer is gone). */
  failAll(error: Error): void {
    const waiters = [...this.waiters.values()];
    this.waiters.clear();
    for (const waiter of waiters) waiter.reject(error);
  }
}
