/** A StateShard fed facts as the Kafka adapter feeds them, in virtual time, keeping what it published. */
import type { CommandCompleted, KpmEvent } from '@kpm/contracts';
import type { BroadcastEffect, CommandEffect, Effect } from '../effects';
import { StateShard } from '../state-shard';
import { timeOf } from './facts';

export class ShardHarness {
  now = Date.parse('2026-01-01T00:00:30.000Z');
  readonly shard: StateShard;
  readonly effects: Effect[] = [];

  constructor(private readonly operators: readonly string[] = []) {
    this.shard = new StateShard(() => this.now, undefined, operators);
  }

  feed(...events: KpmEvent[]): this {
    for (const event of events) this.effects.push(...this.shard.apply(event, timeOf(event)));
    return this;
  }

  tick(ms: number): this {
    this.now += ms;
    this.effects.push(...this.shard.expire());
    return this;
  }

  completions(): CommandCompleted[] {
    return this.effects.flatMap((e) => (e.kind === 'completion' ? [e.completion] : []));
  }

  broadcasts(type?: string): BroadcastEffect[] {
    return this.effects.flatMap((e) =>
      e.kind === 'broadcast' && (!type || e.broadcastType === type) ? [e] : [],
    );
  }

  /** The commands it sent on its own (exit policies). */
  commands(): CommandEffect[] {
    return this.effects.flatMap((e) => (e.kind === 'command' ? [e] : []));
  }

  /**
   * A crashed shard's committed output (completions, rows, tombstones) restored into a new
   * shard that replays `replay`, as a restore does.
   */
  restored(replay: KpmEvent[]): this {
    const Harness = this.constructor as new (operators: readonly string[]) => this;
    const after = new Harness(this.operators);
    after.now = this.now;
    after.shard.beginRestore();
    for (const c of this.completions()) after.shard.markCompleted(c.commandId);
    for (const e of this.effects) {
      if (e.kind === 'process') after.shard.table.load(e.instance);
      if (e.kind === 'tombstone') after.shard.table.forget(e.uuid);
    }
    after.feed(...replay);
    after.effects.push(...after.shard.endRestore());
    return after;
  }
}
