import type { V1Node, V1NodeList, V1Pod, V1PodList, V1Taint } from '@kubernetes/client-node';
import { NodeDirectory } from './node-directory';

const node = (name: string, ready: boolean, unschedulable = false, taints?: V1Taint[]): V1Node => ({
  metadata: { name },
  spec: { unschedulable, taints },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const reserved: V1Taint = { key: 'real.kpm.daq/node', value: 'true', effect: 'NoSchedule' };

function fakeCore(nodes: V1Node[], pods: V1Pod[] = []) {
  const core = {
    calls: 0,
    nodes,
    selectors: [] as string[],
    listNode: () => {
      core.calls++;
      return Promise.resolve({ items: core.nodes } as V1NodeList);
    },
    listPodForAllNamespaces: ({ fieldSelector = '' }: { fieldSelector?: string } = {}) => {
      core.selectors.push(fieldSelector);
      const host = /spec\.nodeName=([^,]+)/.exec(fieldSelector)?.[1];
      return Promise.resolve({ items: pods.filter((p) => p.spec?.nodeName === host) } as V1PodList);
    },
  };
  return core;
}

const pod = (
  nodeName: string,
  requests: Array<Record<string, string>>,
  init?: Record<string, string>,
): V1Pod => ({
  spec: {
    nodeName,
    containers: requests.map((r, i) => ({ name: `c${i}`, resources: { requests: r } })),
    ...(init ? { initContainers: [{ name: 'init', resources: { requests: init } }] } : {}),
  },
});

describe('NodeDirectory: what a node offers and what is taken', () => {
  it('counts sidecars beside the containers, an init container with the sidecars before it, and the overhead', async () => {
    const withSidecar: V1Pod = {
      spec: {
        nodeName: 'a',
        containers: [{ name: 'main', resources: { requests: { cpu: '1' } } }],
        initContainers: [
          { name: 'proxy', restartPolicy: 'Always', resources: { requests: { cpu: '250m' } } },
          { name: 'setup', resources: { requests: { cpu: '2' } } },
        ],
        overhead: { cpu: '100m' },
      },
    };
    const directory = new NodeDirectory(fakeCore([node('a', true)], [withSidecar]), {
      expiryMs: 1000,
    });
    // max(1 + 0.25, 0.25 + 2) + 0.1 cores
    expect(await directory.requested('a')).toEqual({ cpu: 2350 });
  });

  it("tells a usable node's allocatable", async () => {
    const offered = {
      ...node('a', true),
      status: { ...node('a', true).status, allocatable: { cpu: '4', 'hugepages-1Gi': '8Gi' } },
    };
    const directory = new NodeDirectory(fakeCore([offered]), { expiryMs: 1000 });
    expect(await directory.check('a')).toEqual({
      name: 'a',
      usable: true,
      allocatable: { cpu: '4', 'hugepages-1Gi': '8Gi' },
    });
  });

  it('sums the requests of the pods bound to a host that have not ended, init containers as the scheduler does', async () => {
    const core = fakeCore(
      [node('a', true)],
      [
        pod('a', [{ cpu: '500m', memory: '1Gi' }, { cpu: '1' }]),
        pod('a', [{ 'hugepages-1Gi': '2Gi' }], { cpu: '3', memory: '64Mi' }),
        pod('b', [{ cpu: '8' }]),
      ],
    );
    const directory = new NodeDirectory(core, { expiryMs: 1000 });
    expect(await directory.requested('a')).toEqual({
      cpu: 4500,
      memory: (2 ** 30 + 64 * 2 ** 20) * 1000,
      'hugepages-1Gi': 2 * 2 ** 30 * 1000,
    });
    expect(core.selectors).toEqual([
      'spec.nodeName=a,status.phase!=Succeeded,status.phase!=Failed',
    ]);
  });
});

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
