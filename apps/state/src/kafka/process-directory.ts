import type { ProcessInstance, ProcessQuery } from '@kpm/contracts';
import { byName } from '../domain/process-table';
import type { StateShard } from '../domain/state-shard';
import type { StateView } from '../view/state-view';

/**
 * `ps` spans every session: the shards this replica owns answer for theirs (fresh), the view
 * (every replica's published table) for the others.
 */
export class ProcessDirectory {
  constructor(
    private readonly shards: ReadonlyMap<number, StateShard>,
    private readonly view: StateView,
  ) {}

  select(query: ProcessQuery): ProcessInstance[] {
    const owned = new Set(this.shards.keys());
    const mine = [...this.shards.values()].flatMap((shard) => shard.table.select(query));
    const others = this.view
      .select(query)
      .filter((row) => row.shard === undefined || !owned.has(row.shard))
      .filter((row) => !mine.some((p) => p.uuid === row.instance.uuid))
      .map((row) => row.instance);
    return [...mine, ...others].sort(byName);
  }
}
