/**
 * What one shard remembers between facts, and the two rules every step obeys: side effects other
 * than completions are published only live (a replay repeats history), and a command completes
 * exactly once, forgetting everything still open about it.
 */
import type { ProcessBootFailed, ProcessInstance } from '@kpm/contracts';
import type { BootAggregate } from './boot-aggregate';
import { completionEffects, type CompletionInput } from './broadcasts';
import { bootCompletion, killCompletion } from './completions';
import type { Effect } from './effects';
import type { KillAggregate } from './kill-aggregate';
import { ProcessBook } from './process-book';

export type Clock = () => number;

/** A boot's outcome for one process: its running instance or why it failed to start. */
export type BootFact = ProcessInstance | ProcessBootFailed;

export class ShardMemory {
  readonly book = new ProcessBook();
  readonly completed = new Set<string>();
  readonly boots = new Map<string, BootAggregate>();
  readonly kills = new Map<string, KillAggregate>();
  /** False while restoring: facts rebuild aggregates but publish nothing but due completions. */
  live = true;
  /** Boot facts whose command has not been accepted here yet. */
  private readonly early = new Map<string, BootFact[]>();

  constructor(readonly clock: Clock) {}

  /** Side effects other than completions are published only live (a replay repeats history). */
  publish(effects: Effect[]): Effect[] {
    return this.live ? effects : [];
  }

  complete(input: Omit<CompletionInput, 'completedAt'>): Effect[] {
    this.completed.add(input.commandId);
    this.boots.delete(input.commandId);
    this.kills.delete(input.commandId);
    this.early.delete(input.commandId);
    // Completions are published in a replay too: if the replay finds one due, it was never written.
    return completionEffects({ ...input, completedAt: this.clock() });
  }

  settleBoot(boot: BootAggregate): Effect[] {
    return boot.done ? this.complete(bootCompletion(boot, this.book.table)) : [];
  }

  settleKill(kill: KillAggregate): Effect[] {
    return kill.done ? this.complete(killCompletion(kill, this.book.table)) : [];
  }

  /** Keeps a boot fact until its command is accepted here. */
  holdEarly(commandId: string, fact: BootFact): void {
    const facts = this.early.get(commandId) ?? [];
    facts.push(fact);
    this.early.set(commandId, facts);
  }

  /** The boot facts held for `commandId`, now that it is accepted. */
  takeEarly(commandId: string): BootFact[] {
    const facts = this.early.get(commandId) ?? [];
    this.early.delete(commandId);
    return facts;
  }
}
