import type { ProcessInstance, ProcessQuery } from '@kpm/contracts';
import { byName } from '../domain/process-table';
import type { OpenCommand, StateShard } from '../domain/state-shard';
import type { StateView } from '../view/state-view';

/**
 * The shards this replica owns, by partition number. `select` is the shards' directory for `ps`,
 * which spans every session: the owned shards answer for theirs (fresh), the view (every
 * replica's published table) for the others.
 */
export class OwnedShards {
  private readonly shards = new Map<number, StateShard>();

  constructor(private readonly view: StateView) {}

  get(partition: number): StateShard | undefined {
    return this.shards.get(partition);
  }

  set(partition: number, shard: StateShard): void {
    this.shards.set(partition, shard);
  }

  delete(partition: number): void {
    this.shards.delete(partition);
  }

  partitions(): number[] {
    return [...this.shards.keys()].sort((a, b) => a - b);
  }

  all(): StateShard[] {
    return [...this.shards.values()];
  }

  /** The row of `uuid` in the shard that holds it, if this replica owns its session. */
  instance(uuid: string): ProcessInstance | undefined {
    for (const shard of this.shards.values()) {
      const found = shard.table.get(uuid);
      if (found) return found;
    }
    return undefined;
  }

  openCommand(commandId: string): OpenCommand | undefined {
    for (const shard of this.shards.values()) {
      const open = shard.openCommand(commandId);
      if (open) return open;
    }
    return undefined;
  }

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
