import { ApiException, type V1Pod } from '@kubernetes/client-node';
import { loadSettings } from '@kpm/config';
import { KpmLabels, KubeCallFailed, classifyKubeError, type NodeVerdict } from '@kpm/kube';
import type { Cluster } from '../cluster';
import { planProcesses } from './planned-process';
import { PodBuilder } from './pod-builder';
import { ProcessBooter } from './process-booter';

const labels = new KpmLabels('drunc.daq');
const context = { session: 'run-7', user: 'alice', commandId: 'cmd-1' };
const apiError = (code: number, reason: string) =>
  new KubeCallFailed(
    classifyKubeError(
      new ApiException(
        code,
        reason,
        JSON.stringify({ reason, message: `${reason} says the API server` }),
        {},
      ),
    ),
    code >= 500 ? 7 : 1,
  );

/** Just enough of the Cluster for one process: pods by name, nodes, services. */
function fakeCluster(
  options: { nodes?: NodeVerdict[]; create?: (pod: V1Pod) => V1Pod | Error } = {},
) {
  const pods = new Map<string, V1Pod>();
  const calls: string[] = [];
  const nodes = options.nodes ?? [{ name: 'kpm-node-1', usable: true }];
  const cluster = {
    labels,
    fatal: new Set(['ErrImagePull']),
    imagePull: () => ({ graceSeconds: 0, now: new Date() }),
    pods: {
      create: (_ns: string, pod: V1Pod) => {
        calls.push(`create ${pod.metadata!.name}`);
        const result = options.create?.(pod) ?? pod;
        if (result instanceof Error) return Promise.reject(result);
        if (pods.has(pod.metadata!.name!)) return Promise.reject(apiError(409, 'AlreadyExists'));
        const created = { ...result, metadata: { ...result.metadata, uid: `uid-${calls.length}` } };
        pods.set(pod.metadata!.name!, created);
        return Promise.resolve(created);
      },
      read: (_ns: string, name: string) => Promise.resolve(pods.get(name)),
      delete: (pod: V1Pod, grace: number) => {
        calls.push(`delete ${pod.metadata!.name} grace ${grace}`);
        pods.delete(pod.metadata!.name!);
        return Promise.resolve(true);
      },
    },
    services: { ensure: () => Promise.resolve({}) },
    nodes: {
      check: (host: string) =>
        Promise.resolve(
          nodes.find((n) => n.name === host) ?? {
            name: host,
            usable: false,
            reason: 'not part of the cluster',
          },
        ),
      choose: () => Promise.resolve(nodes.find((n) => n.usable)?.name),
      describe: () =>
        Promise.resolve(nodes.map((n) => `${n.name} (${n.reason ?? 'usable'})`).join(', ')),
    },
    waitGone: (gone: V1Pod[]) =>
      Promise.resolve(gone.filter((p) => pods.has(p.metadata!.name!)).map((p) => p.metadata!.uid!)),
    waitPod: () => Promise.resolve(undefined),
  };
  return { cluster: cluster as unknown as Cluster, pods, calls };
}

const settings = loadSettings('boot-worker', {});
const [process] = planProcesses('cmd-1', [
  { name: 'ru-01', treeId: '1.1.1', executableAndArguments: [{ exec: 'daq_application' }] },
]);
const booter = (cluster: Cluster) =>
  new ProcessBooter(cluster, new PodBuilder(labels, settings), settings);
const existingPod = (uuid: string, phase: string): V1Pod => ({
  metadata: {
    name: 'ru-01',
    namespace: 'run-7',
    uid: 'old-uid',
    labels: { [labels.creator]: 'kpm', [labels.uuid]: uuid },
  },
  status: { phase },
});

describe('ProcessBooter', () => {
  it('creates the pod on a usable node', async () => {
    const { cluster } = fakeCluster();
    const outcome = await booter(cluster).boot(process, context, { waitReady: false });
    expect(outcome.ok && outcome.pod.spec!.nodeName).toBe('kpm-node-1');
  });

  it('adopts a pod of the same uuid: a redelivered boot creates nothing twice', async () => {
    const { cluster, pods, calls } = fakeCluster();
    pods.set('ru-01', existingPod(process.uuid, 'Running'));
    const outcome = await booter(cluster).boot(process, context, { waitReady: false });
    expect(outcome.ok && outcome.pod.metadata!.uid).toBe('old-uid');
    expect(calls).toEqual(['create ru-01']);
  });

  it('refuses a name a running process of another uuid holds', async () => {
    const { cluster, pods } = fakeCluster();
    pods.set('ru-01', existingPod('other-uuid', 'Running'));
    expect(await booter(cluster).boot(process, context, { waitReady: false })).toEqual({
      ok: false,
      code: 'NameTaken',
      message: 'pod run-7/ru-01 runs another process (uuid other-uuid)',
    });
  });

  it('deletes the ended pod of an earlier process, then takes over its name', async () => {
    const { cluster, pods, calls } = fakeCluster();
    pods.set('ru-01', existingPod('other-uuid', 'Failed'));
    const outcome = await booter(cluster).boot(process, context, { waitReady: false });
    expect(outcome.ok).toBe(true);
    expect(calls).toEqual(['create ru-01', 'delete ru-01 grace 0', 'create ru-01']);
  });

  it("fails with the API server's reason: invalid at once, unavailable after the retries", async () => {
    const invalid = fakeCluster({ create: () => apiError(422, 'Invalid') });
    expect(await booter(invalid.cluster).boot(process, context, { waitReady: false })).toEqual({
      ok: false,
      code: 'Invalid',
      message: 'could not create pod run-7/ru-01: Invalid says the API server',
    });
    const down = fakeCluster({ create: () => apiError(503, 'ServiceUnavailable') });
    expect(await booter(down.cluster).boot(process, context, { waitReady: false })).toMatchObject({
      ok: false,
      code: 'ServiceUnavailable',
    });
  });

  it('fails when no allowed host, or no node at all, is usable', async () => {
    const { cluster } = fakeCluster({
      nodes: [{ name: 'kpm-node-1', usable: false, reason: 'cordoned' }],
    });
    const [pinned] = planProcesses('cmd-1', [
      {
        ...process.spec,
        uuid: undefined,
        restriction: { allowedHosts: ['kpm-node-1', 'gone-node'] },
      },
    ]);
    expect(await booter(cluster).boot(pinned, context, { waitReady: false })).toEqual({
      ok: false,
      code: 'NodeNotUsable',
      message:
        'no allowed host is Ready and schedulable: kpm-node-1 (cordoned), gone-node (not part of the cluster)',
    });
    expect(await booter(cluster).boot(process, context, { waitReady: false })).toEqual({
      ok: false,
      code: 'NoUsableNode',
      message: 'no node is Ready and schedulable: kpm-node-1 (cordoned)',
    });
  });

  it('takes the first usable allowed host', async () => {
    const { cluster } = fakeCluster({
      nodes: [
        { name: 'kpm-node-1', usable: false, reason: 'not ready' },
        { name: 'kpm-node-3', usable: true },
      ],
    });
    const [pinned] = planProcesses('cmd-1', [
      {
        ...process.spec,
        uuid: undefined,
        restriction: { allowedHosts: ['kpm-node-1', 'kpm-node-3'] },
      },
    ]);
    const outcome = await booter(cluster).boot(pinned, context, { waitReady: false });
    expect(outcome.ok && outcome.pod.spec!.nodeName).toBe('kpm-node-3');
  });

  it('reports a pod that never became Ready', async () => {
    const { cluster } = fakeCluster();
    const outcome = await booter(cluster).boot(process, context, { waitReady: true });
    expect(outcome).toMatchObject({ ok: false, code: 'PodDeleted' });
  });
});
