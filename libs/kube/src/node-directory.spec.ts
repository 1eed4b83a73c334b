import type { V1Node, V1NodeList, V1Taint } from '@kubernetes/client-node';
import { NodeDirectory } from './node-directory';

const node = (name: string, ready: boolean, unschedulable = false, taints?: V1Taint[]): V1Node => ({
  metadata: { name },
  spec: { unschedulable, taints },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const reserved: V1Taint = { key: 'real.kpm.daq/node', value: 'true', effect: 'NoSchedule' };

function fakeCore(nodes: V1Node[]) {
  const core = {
    calls: 0,
    nodes,
    listNode: () => {
      core.calls++;
      return Promise.resolve({ items: core.nodes } as V1NodeList);
    },
  };
  return core;
}

describe('NodeDirectory', () => {
  it('judges Ready, cordoned and unknown hosts', async () => {
    const core = fakeCore([node('a', true), node('b', false), node('c', true, true)]);
    const directory = new NodeDirectory(core, { expiryMs: 1000 });
    expect(await directory.check('a')).toEqual({ name: 'a', usable: true });
    expect(await directory.check('b')).toEqual({ name: 'b', usable: false, reason: 'not ready' });
    expect(await directory.check('c')).toEqual({ name: 'c', usable: false, reason: 'cordoned' });
    expect(await directory.check('zz')).toMatchObject({ reason: 'not part of the cluster' });
    expect(await directory.summary()).toBe('a (usable), b (not ready), c (cordoned)');
  });

  it.each([
    { taint: reserved, tainted: true },
    { taint: { ...reserved, effect: 'NoExecute' }, tainted: true },
    { taint: { ...reserved, effect: 'PreferNoSchedule' }, tainted: false },
    { taint: { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }, tainted: false },
    { taint: { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }, tainted: false },
  ])('keeps a node with $taint.key $taint.effect for those naming it: $tainted', async (row) => {
    const core = fakeCore([node('a', true), node('r', true, false, [row.taint])]);
    const directory = new NodeDirectory(core, { expiryMs: 1000 });
    expect(await directory.check('r')).toMatchObject({ usable: true });
    expect((await directory.check('r')).taints).toEqual(row.tainted ? [row.taint] : undefined);
    expect(await directory.usableNodes()).toEqual(row.tainted ? ['a'] : ['a', 'r']);
  });

  it('never chooses a tainted node for a process that names no host', async () => {
    const core = fakeCore([node('a', true), node('r', true, false, [reserved])]);
    const directory = new NodeDirectory(core, { expiryMs: 1000 });
    const chosen = await Promise.all(
      Array.from({ length: 100 }, (_, i) => directory.choose(`uuid-${i}`)),
    );
    expect(new Set(chosen)).toEqual(new Set(['a']));
    expect(await directory.summary()).toBe('a (usable), r (usable when named, tainted)');
  });

  it('lists the nodes once per expiry, also under concurrent checks', async () => {
    let now = 0;
    const core = fakeCore([node('a', true)]);
    const directory = new NodeDirectory(core, { expiryMs: 300_000, now: () => now });
    await Promise.all(Array.from({ length: 50 }, () => directory.check('a')));
    expect(core.calls).toBe(1);
    core.nodes = [node('a', false)];
    now = 299_999;
    expect((await directory.check('a')).usable).toBe(true);
    now = 300_000;
    expect((await directory.check('a')).usable).toBe(false);
    expect(core.calls).toBe(2);
  });

  it('spreads processes over usable nodes, the same node for the same key', async () => {
    const core = fakeCore([node('a', true), node('b', true), node('c', true), node('d', false)]);
    const directory = new NodeDirectory(core, { expiryMs: 1000 });
    const chosen = await Promise.all(
      Array.from({ length: 300 }, (_, i) => directory.choose(`uuid-${i}`)),
    );
    const counts = chosen.reduce<Record<string, number>>(
      (acc, n) => ({ ...acc, [n!]: (acc[n!] ?? 0) + 1 }),
      {},
    );
    expect(Object.keys(counts).sort()).toEqual(['a', 'b', 'c']);
    for (const count of Object.values(counts)) expect(count).toBeGreaterThan(60);
    expect(await directory.choose('uuid-7')).toBe(chosen[7]);
  });

  it('has no node to choose when none is usable', async () => {
    const directory = new NodeDirectory(fakeCore([node('a', false)]), { expiryMs: 1000 });
    expect(await directory.choose('x')).toBeUndefined();
  });
});
