/**
 * What one shard remembers between facts, and the two rules every step obeys: side effects other
 * than completions are published only live (a replay repeats history), and a command completes
 * exactly once, forgetting everything still open about it.
 */
import type { AutomaticAction, ProcessBootFailed, ProcessInstance } from '@kpm/contracts';
import type { BootAggregate } from './boot-aggregate';
import { completionEffects } from './broadcasts';
import type { CompletionReport } from './completion-record';
import { bootCompletion } from './completion/boot';
import { killCompletion } from './completion/kill';
import { restartCompletion } from './completion/restart';
import type { Effect } from './effects';
import { automaticOf } from './exit-decision';
import type { KillAggregate } from './kill-aggregate';
import { ProcessBook } from './process-book';
import { RecentIds } from './recent-ids';
import { shardLimits, type ShardLimits } from './shard-limits';

export type Now = () => number;

/** A boot's outcome for one process: its running instance or why it failed to start. */
export type BootFact = ProcessInstance | ProcessBootFailed;

export class ShardMemory {
  readonly book: ProcessBook;
  /** The last commands completed here: a late duplicate of their facts completes nothing. */
  readonly completed: RecentIds;
  readonly boots = new Map<string, BootAggregate>();
  readonly kills = new Map<string, KillAggregate>();
  /**
   * Automatic restarts waiting for their backoff, by uuid: when each is due. Their rows say
   * so too (exit-actions.ts), and a restore re-arms them from there.
   */
  readonly pendingRestarts = new Map<string, number>();
  /** Commands sent under an exit policy, until their completion quotes why (exit-actions.ts). */
  readonly automaticCommands = new Map<string, AutomaticAction>();
  /** False while restoring: facts rebuild aggregates but publish nothing but due completions. */
  live = true;
  /** Boot facts whose command has not been accepted here yet. */
  private readonly early = new Map<string, BootFact[]>();

  constructor(
    readonly now: Now,
    private readonly limits: ShardLimits = shardLimits(),
  ) {
    this.book = new ProcessBook(limits.forgottenPods);
    this.completed = new RecentIds(limits.completedCommands);
  }

  /** A replay checks the whole history against whole sets; live, the bounds apply again. */
  beginRestore(): void {
    this.live = false;
    this.completed.suspend();
    this.book.suspend();
  }

  endRestore(): void {
    this.live = true;
    this.completed.resume();
    this.book.resume();
  }

  /**
   * Side effects other than completions are published only live (a replay repeats history);
   * built only then, so a replay of a long history does not build what it drops.
   */
  publish(build: () => Effect[]): Effect[] {
    return this.live ? build() : [];
  }

  complete(input: CompletionReport): Effect[] {
    const automatic =
      this.automaticCommands.get(input.commandId) ?? automaticOf(input.commandId, input.processes);
    this.answered(input.commandId);
    // Completions are published in a replay too: if the replay finds one due, it was never written.
    return completionEffects({
      ...input,
      completedAt: this.now(),
      ...(automatic ? { automatic } : {}),
    });
  }

  /**
   * `commandId` is answered (here, or on `kpm.completions` as a restore reads it): its id is
   * remembered and whatever was still open about it is forgotten.
   */
  answered(commandId: string): void {
    this.completed.add(commandId);
    this.automaticCommands.delete(commandId);
    this.boots.delete(commandId);
    this.kills.delete(commandId);
    this.early.delete(commandId);
  }

  /** Completes the boot if its rule says it is complete (completion/boot.ts). */
  settleBoot(boot: BootAggregate): Effect[] {
    const report = bootCompletion(boot, this.book.table);
    return report ? this.complete(report) : [];
  }

  /** Completes the kill, terminate or restart if its rule says so (completion/kill.ts, restart.ts). */
  settleKill(kill: KillAggregate): Effect[] {
    const rule = kill.kind === 'restart' ? restartCompletion : killCompletion;
    const report = rule(kill, this.book.table);
    return report ? this.complete(report) : [];
  }

  /**
   * Keeps a boot fact until its command is accepted here. The boot-worker writes a command's
   * acceptance before its facts in one ordered partition, so facts come first only when the
   * acceptance is gone (retention) or never comes: the oldest held command is dropped first.
   */
  holdEarly(commandId: string, fact: BootFact): void {
    const facts = this.early.get(commandId) ?? [];
    facts.push(fact);
    this.early.set(commandId, facts);
    for (const oldest of this.early.keys()) {
      if (this.early.size <= this.limits.heldCommands) break;
      this.early.delete(oldest);
    }
  }

  /** The held boot facts per command, oldest command first (what a snapshot keeps). */
  heldFacts(): IterableIterator<[string, BootFact[]]> {
    return this.early.entries();
  }

  get heldCommands(): number {
    return this.early.size;
  }

  /** The boot facts held for `commandId`, now that it is accepted. */
  takeEarly(commandId: string): BootFact[] {
    const facts = this.early.get(commandId) ?? [];
    this.early.delete(commandId);
    return facts;
  }
}
