import type { V1Pod } from '@kubernetes/client-node';
import {
  controller,
  fixture,
  SESSION,
  spec,
  TREE,
  USER,
} from '../__fixtures__/boot-worker-fixture';
import { NODE_IP } from '../__fixtures__/fake-cluster';
import type { Reachability } from './reachability';
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
    cluster.clock,
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
      tolerations: [
        { key: 'dedicated', operator: 'Equal', value: 'daq', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', tolerationSeconds: 30 },
      ],
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

  it.each<[string, Record<string, string>, Record<string, unknown>]>([
    [
      'a NodePort on the port of its command line (drunc)',
      {},
      { type: 'NodePort', ports: [expect.objectContaining({ port: 30500, nodePort: 30500 })] },
    ],
    [
      'on the configured node port',
      { KPM_CONNECTION_SERVER_NODE_PORT: '31000' },
      { type: 'NodePort', ports: [expect.objectContaining({ port: 30500, nodePort: 31000 })] },
    ],
    ['headless without node ports', { KPM_NODE_PORTS: 'false' }, { clusterIP: 'None' }],
  ])('gives the connection server one Service named after it: %s', async (_, env, expected) => {
    const { cluster, boot } = setUp({ env });
    const [server] = planProcesses('cmd-1', [TREE[1]]);
    expect((await boot(server)).ok).toBe(true);
    expect(cluster.timeline(/service/)).toEqual([
      '+0s create service run-7/local-connection-server',
    ]);
    expect(cluster.service(SESSION, 'local-connection-server')!.spec).toMatchObject(expected);
  });

  it('tells where the others reach the connection server as localhost, once it is Ready', async () => {
    for (const [alias, address] of [
      ['cluster-ip', /^10\.96\./],
      ['pod-ip', /^10\.88\./],
      ['none', undefined],
    ] as const) {
      const { boot } = setUp({ env: { KPM_LOCALHOST_ALIAS: alias } });
      const [server] = planProcesses('cmd-1', [TREE[1]]);
      const outcome = await boot(server, true);
      expect(outcome.ok).toBe(true);
      const got = outcome.ok ? outcome.connectionServer : 'failed';
      if (address) expect(got).toMatch(address);
      else expect(got).toBeUndefined();
    }
  });
});

describe('ProcessBooter: drunc’s own connect to a Ready connection server and root controller', () => {
  const root = planProcesses('cmd-1', [
    controller('root', '0', {
      executableAndArguments: [{ exec: 'drunc-controller', args: ['-c', 'grpc://h:30333'] }],
    }),
  ])[0];

  function withReach(check: string, answers: boolean[]) {
    const f = fixture({
      env: { KPM_REACHABILITY_CHECK: check, KPM_SERVICE_STARTUP_TIMEOUT_SECONDS: '5' },
    });
    f.cluster.addNamespace(SESSION, { 'creator.drunc.daq': 'kpm', 'user.drunc.daq': USER });
    const tried: string[] = [];
    const reach: Reachability = {
      tcp: (host, port) => (
        tried.push(`tcp ${host}:${port}`),
        Promise.resolve(answers.shift() ?? false)
      ),
      http: (url) => (tried.push(`http ${url}`), Promise.resolve(answers.shift() ?? false)),
    };
    const booter = new ProcessBooter(
      f.cluster,
      new PodBuilder(f.cluster.labels, f.settings),
      new EndingRule(f.settings, f.cluster.clock),
      f.settings.podManagement,
      f.cluster.clock,
      reach,
    );
    return { booter, tried, cluster: f.cluster };
  }

  it.each<[string, string, string]>([
    ['the root controller by TCP on its node port', 'node-port', `tcp ${NODE_IP}:30333`],
    ['the root controller by TCP on its pod address', 'pod-ip', 'tcp 10.88.0.'],
  ])('connects to %s until it answers', async (_, check, first) => {
    const { booter, tried } = withReach(check, [false, false, true]);
    const outcome = await booter.boot(root, context, { waitReady: true });
    expect(outcome.ok).toBe(true);
    expect(tried).toHaveLength(3);
    expect(tried[0].startsWith(first)).toBe(true);
  });

  it('asks the connection server by HTTP', async () => {
    const { booter, tried } = withReach('node-port', [true]);
    const [server] = planProcesses('cmd-1', [TREE[1]]);
    expect((await booter.boot(server, context, { waitReady: true })).ok).toBe(true);
    expect(tried).toEqual([`http http://${NODE_IP}:30500/`]);
  });

  it('fails the boot when it never answers within serviceStartupTimeoutSeconds', async () => {
    const { booter, cluster } = withReach('node-port', []);
    const started = cluster.clock.now();
    expect(await booter.boot(root, context, { waitReady: true })).toMatchObject({
      ok: false,
      code: 'NotReachable',
      message: expect.stringContaining(
        `TCP ${NODE_IP}:30333 (node-port) did not answer within 5 s`,
      ),
    });
    expect(cluster.clock.now() - started).toBeGreaterThanOrEqual(5_000);
  });

  it('connects to nothing with none, nor to a process without a node port', async () => {
    const { booter, tried } = withReach('none', []);
    expect((await booter.boot(root, context, { waitReady: true })).ok).toBe(true);
    const other = withReach('node-port', []);
    expect((await other.booter.boot(process, context, { waitReady: true })).ok).toBe(true);
    expect([...tried, ...other.tried]).toEqual([]);
  });
});
