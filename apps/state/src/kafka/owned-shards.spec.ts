import type { ProcessInstance } from '@kpm/contracts';
import type { StateShard } from '../domain/state-shard';
import type { StateView, ViewRow } from '../view/state-view';
import { OwnedShards } from './owned-shards';

function instance(uuid: string, name: string, session = 's'): ProcessInstance {
  return { uuid, description: { metadata: { session, name } } } as unknown as ProcessInstance;
}

function shardHolding(...rows: ProcessInstance[]): StateShard {
  return { table: { select: () => rows } } as unknown as StateShard;
}

function directory(shards: Map<number, StateShard>, viewRows: ViewRow[]) {
  const view = { select: () => viewRows } as unknown as StateView;
  const owned = new OwnedShards(view);
  for (const [p, shard] of shards) owned.set(p, shard);
  return owned;
}

describe('OwnedShards: the directory ps reads', () => {
  it.each<{
    rule: string;
    owned: Record<number, ProcessInstance[]>;
    view: ViewRow[];
    uuids: string[];
  }>([
    {
      rule: 'owned shards answer for their sessions; the view for the partitions owned elsewhere',
      owned: { 0: [instance('u1', 'a')] },
      view: [
        { instance: instance('u1-stale', 'a'), shard: 0 },
        { instance: instance('u2', 'b'), shard: 1 },
      ],
      uuids: ['u1', 'u2'],
    },
    {
      rule: 'a view row the owned shard also holds is listed once (the fresh one)',
      owned: { 0: [instance('u1', 'a')] },
      view: [{ instance: instance('u1', 'a'), shard: 3 }],
      uuids: ['u1'],
    },
    {
      rule: 'rows with no owner partition come from the view',
      owned: {},
      view: [{ instance: instance('u9', 'z') }],
      uuids: ['u9'],
    },
    {
      rule: 'the answer is sorted by session and name',
      owned: { 0: [instance('u3', 'c')], 1: [instance('u1', 'a', 'r')] },
      view: [{ instance: instance('u2', 'b'), shard: 2 }],
      uuids: ['u1', 'u2', 'u3'],
    },
  ])('$rule', ({ owned, view, uuids }) => {
    const shards = new Map(
      Object.entries(owned).map(([p, rows]) => [Number(p), shardHolding(...rows)]),
    );
    const found = directory(shards, view).select({});
    expect(found.map((p) => p.uuid)).toEqual(uuids);
  });
});
