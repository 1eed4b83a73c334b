import type { V1Pod } from '@kubernetes/client-node';
import { fixture, SESSION, spec, USER } from '../__fixtures__/boot-worker-fixture';
import { EndingRule } from '../cluster/pod-state';
import { planProcesses, type PlannedProcess } from './planned-process';
import { PodBuilder } from './pod-builder';
import { ProcessBooter } from './process-booter';

const context = { session: SESSION, user: USER, commandId: 'cmd-1' };
const [process] = planProcesses('cmd-1', [spec('ru-01', '0.1.1')]);

function setUp(options: Parameters<typeof fixture>[0] = {}) {
  const f = fixture(options);
  const { cluster, settings } = f;
  f.cluster.addNamespace(SESSION, { 'creator.drunc.daq': 'kpm', 'user.drunc.daq': USER });
  const booter = new ProcessBooter(
    cluster,
    new PodBuilder(cluster.labels, settings),
    new EndingRule(settings, cluster.clock),
    settings.podManagement,
  );
  const boot = (p: PlannedProcess = process, waitReady = false) =>
    booter.boot(p, context, { waitReady });
  return { cluster, boot };
}

const earlierPod = (uuid: string): V1Pod => ({
  metadata: {
    name: 'ru-01',
    namespace: SESSION,
    uid: 'old-uid',
    labels: { 'creator.drunc.daq': 'kpm', 'uuid.drunc.daq': uuid },
    finalizers: ['drunc.daq/termination-record'],
  },
});

const pinned = (hosts: string[]) =>
  planProcesses('cmd-1', [spec('ru-01', '0.1.1', { restriction: { allowedHosts: hosts } })])[0];

describe('ProcessBooter', () => {
  it('creates the pod bound to a usable node', async () => {
    const { boot } = setUp();
    const outcome = await boot();
    expect(outcome.ok && outcome.pod.spec!.nodeName).toBe('node-1');
  });

  it('adopts a pod of the same uuid: a redelivered boot creates nothing twice', async () => {
    const { cluster, boot } = setUp();
    cluster.addPod(earlierPod(process.uuid));
    const outcome = await boot();
    expect(outcome.ok && outcome.pod.metadata!.uid).toBe('old-uid');
    expect(cluster.timeline(/pod/)).toEqual([]);
  });

  it('refuses a name a running process of another uuid holds', async () => {
    const { cluster, boot } = setUp();
    cluster.addPod(earlierPod('other-uuid'));
    expect(await boot()).toEqual({
      ok: false,
      code: 'NameTaken',
      message: 'pod run-7/ru-01 runs another process (uuid other-uuid)',
    });
  });

  it('takes the first usable allowed host, or fails naming each and why', async () => {
    const { boot } = setUp({ nodes: { 'node-1': 'not-ready', 'node-3': 'ready' } });
    const outcome = await boot(pinned(['node-1', 'node-3']));
    expect(outcome.ok && outcome.pod.spec!.nodeName).toBe('node-3');
    expect(await boot(pinned(['node-1', 'gone']))).toEqual({
      ok: false,
      code: 'NodeNotUsable',
      message:
        'no allowed host is Ready and schedulable: node-1 (not ready), gone (not part of the cluster)',
    });
  });

  it('places through the node selector when it does not assign nodes', async () => {
    const { boot } = setUp({ env: { KPM_ASSIGN_NODES: 'false' } });
    const outcome = await boot(pinned(['node-1']));
    expect(outcome.ok && outcome.pod.spec).toMatchObject({
      nodeName: undefined,
      nodeSelector: { 'kubernetes.io/hostname': 'node-1' },
    });
  });

  it('takes a tainted node only when named, tolerating its taints for the scheduler', async () => {
    const nodes = { 'node-1': 'tainted', 'node-2': 'ready' } as const;
    const assigned = setUp({ nodes });
    const spread = await assigned.boot();
    expect(spread.ok && spread.pod.spec!.nodeName).toBe('node-2');
    const scheduled = setUp({ nodes, env: { KPM_ASSIGN_NODES: 'false' } });
    const named = await scheduled.boot(pinned(['node-1']));
    expect(named.ok && named.pod.spec).toMatchObject({
      nodeSelector: { 'kubernetes.io/hostname': 'node-1' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'daq', effect: 'NoSchedule' }],
    });
  });

  it("fails with the API server's reason when the create fails for good", async () => {
    const { cluster, boot } = setUp();
    cluster.failNext('pods.create', {
      kind: 'retryable',
      status: 503,
      reason: 'ServiceUnavailable',
    });
    expect(await boot()).toEqual({
      ok: false,
      code: 'ServiceUnavailable',
      message: 'could not create pod run-7/ru-01: ServiceUnavailable says the API server',
    });
  });

  it('reports a pod deleted before it became Ready', async () => {
    const { cluster, boot } = setUp({ defaultScript: { readyAfterMs: 10_000 } });
    cluster.clock.schedule(1_000, () => cluster.removePod(SESSION, 'ru-01'));
    expect(await boot(process, true)).toMatchObject({ ok: false, code: 'PodDeleted' });
  });

  it('creates the connection server’s Services: headless, and the NodePort when configured', async () => {
    const { cluster, boot } = setUp({ env: { KPM_CONNECTION_SERVER_NODE_PORT: '30500' } });
    const [server] = planProcesses('cmd-1', [spec('local-connection-server', '2')]);
    expect((await boot(server)).ok).toBe(true);
    expect(cluster.timeline(/service/)).toEqual([
      '+0s create service run-7/local-connection-server',
      '+0s create service run-7/local-connection-server-nodeport',
    ]);
  });
});
