import { CommandType, ProcessEventType, processUuid, roleOf } from '@kpm/contracts';
import { BootWorkerHarness } from '../support/boot-worker-harness';
import { connectionServer } from '../support/daq-application';
import { suitePorts } from '../support/suite-ports';

/**
 * The boot-worker on the real stack: Kafka in, Kubernetes (kube-apiserver + kwok) out, facts on
 * kpm.process-events. A finalizer janitor stands in for the watcher (test/support).
 */
const { bootAccepted, processBooted, processBootFailed, killAccepted } = ProcessEventType;
const app = (name: string, treeId?: string, extra: Record<string, unknown> = {}) => ({
  name,
  treeId,
  executableAndArguments: [
    { exec: 'source', args: ['${DBT_AREA}/env.sh'] },
    { exec: 'daq_application', args: ['--name', name] },
  ],
  ...extra,
});

/** A drunc controller: the same process running drunc-controller (its role is by executable). */
const controller = (...args: Parameters<typeof app>) => ({
  ...app(...args),
  executableAndArguments: [{ exec: 'drunc-controller', args: ['--name', args[0]] }],
});

jest.setTimeout(180_000);

let h: BootWorkerHarness;

beforeAll(async () => {
  h = await BootWorkerHarness.start('bw', {
    KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
    KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
    KPM_POD_READY_TIMEOUT_SECONDS: '20',
  });
}, 120_000);

afterAll(() => h?.close(), 120_000);

describe('boot', () => {
  const tree = [
    connectionServer(suitePorts('boot-worker', 1).node(0)),
    controller('root', '0'),
    controller('seg', '0.1'),
    app('ru-01', '0.1.1', {
      restriction: { allowedHosts: ['kpm-node-2'] },
      env: { DAQ_LEVEL: '3' },
      logsPath: '/log/daq',
      labels: { detector: 'np04' },
    }),
    app('ru-02', '0.1.2'),
  ];
  let session: string;
  let firstUids: string[];

  it('boots a process tree: pods, services, labels, nodes and facts', async () => {
    session = h.session('tree');
    await h.send('boot-tree', CommandType.boot, { session, user: 'alice', processes: tree });
    const accepted = await h.fact(bootAccepted, 'boot-tree');
    expect(accepted.data.processes).toEqual(
      tree.map((p, i) => ({
        uuid: processUuid('boot-tree', i),
        name: p.name,
        treeId: p.treeId,
        role: roleOf(p),
      })),
    );
    const booted = await h.factCount(processBooted, 'boot-tree', 5);
    expect(h.facts(processBootFailed, 'boot-tree')).toEqual([]);
    const pods = await h.pods(session);
    expect(pods.map((p) => p.metadata!.name).sort()).toEqual(tree.map((p) => p.name).sort());
    firstUids = pods.map((p) => p.metadata!.uid!).sort();

    const ru01 = pods.find((p) => p.metadata!.name === 'ru-01')!;
    expect(ru01.metadata!.labels).toMatchObject({
      [h.labels.creator]: 'kpm',
      [h.labels.uuid]: processUuid('boot-tree', 3),
      [h.labels.session]: session,
      [h.labels.treeId]: '0.1.1',
      [h.labels.role]: 'application',
      [h.labels.user]: 'alice',
      app: 'ru-01',
      detector: 'np04',
    });
    expect(ru01.metadata!.finalizers).toEqual([h.labels.terminationFinalizer]);
    expect(JSON.parse(ru01.metadata!.annotations![h.labels.specAnnotation])).toMatchObject({
      name: 'ru-01',
      uuid: processUuid('boot-tree', 3),
    });
    expect(ru01.spec!.nodeName).toBe('kpm-node-2');
    expect(ru01.spec!.restartPolicy).toBe('Never');
    const container = ru01.spec!.containers[0];
    expect(container.command).toEqual([
      '/bin/bash',
      '-c',
      '"source" "${DBT_AREA}/env.sh" && exec "daq_application" "--name" "ru-01"',
    ]);
    expect(container.env).toEqual(
      expect.arrayContaining([
        { name: 'USER', value: 'alice' },
        { name: 'HOME', value: '/home/alice' },
        { name: 'DAQ_LEVEL', value: '3' },
      ]),
    );
    // Through its allowed prefix, /log: the kubelet refuses a symlink below it that leads out.
    expect(container.volumeMounts).toEqual([
      { name: 'kpm-logs', mountPath: '/log/daq', subPath: 'daq' },
    ]);
    for (const pod of pods) expect(pod.spec!.nodeName).toMatch(/^kpm-node-[123]$/);

    const services = await h.core.listNamespacedService({ namespace: session });
    expect(services.items).toHaveLength(5);
    for (const service of services.items) {
      const pod = pods.find((p) => p.metadata!.name === service.metadata!.name)!;
      // drunc's connection server is a NodePort on its own port; the others headless for discovery.
      if (service.metadata!.name === 'local-connection-server') {
        expect(service.spec!.type).toBe('NodePort');
      } else {
        expect(service.spec!.clusterIP).toBe('None');
        expect(service.spec!.ports![0].port).toBe(80);
      }
      expect(service.metadata!.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'Pod', uid: pod.metadata!.uid }),
      ]);
    }
    const namespace = await h.core.readNamespace({ name: session });
    expect(namespace.metadata!.labels).toMatchObject({
      [h.labels.creator]: 'kpm',
      [h.labels.user]: 'alice',
    });

    expect(booted.map((e) => (e.data.process as { uuid: string }).uuid).sort()).toEqual(
      tree.map((_, i) => processUuid('boot-tree', i)).sort(),
    );
    const ru01Fact = booted.find(
      (e) => (e.data.process as { podName: string }).podName === 'ru-01',
    )!.data.process;
    expect(ru01Fact).toMatchObject({
      statusCode: 'RUNNING',
      namespace: session,
      podUid: ru01.metadata!.uid,
      nodeName: 'kpm-node-2',
      role: 'application',
      description: { metadata: { user: 'alice', session, name: 'ru-01', hostname: 'kpm-node-2' } },
    });
    for (const fact of booted) expect(fact.subject).toBe(session);
  });

  it('waits for the connection server and the root controller to be Ready', async () => {
    const pods = await h.pods(session);
    for (const name of ['local-connection-server', 'root']) {
      const pod = pods.find((p) => p.metadata!.name === name)!;
      expect(pod.status!.conditions).toEqual(
        expect.arrayContaining([expect.objectContaining({ type: 'Ready', status: 'True' })]),
      );
    }
  });

  it('a redelivered boot creates nothing twice and re-emits the same event ids', async () => {
    const firstIds = h.facts(processBooted, 'boot-tree').map((e) => e.id);
    await h.send('boot-tree', CommandType.boot, { session, user: 'alice', processes: tree });
    const all = await h.factCount(processBooted, 'boot-tree', 10);
    expect(new Set(all.map((e) => e.id))).toEqual(new Set(firstIds));
    expect(new Set(h.facts(bootAccepted, 'boot-tree').map((e) => e.id)).size).toBe(1);
    const pods = await h.pods(session);
    expect(pods.map((p) => p.metadata!.uid!).sort()).toEqual(firstUids);
  });

  it("kills in drunc's stages: applications, segment, root controller, infrastructure", async () => {
    const recorder = await h.recordPods(session);
    await h.send('kill-tree', CommandType.kill, {
      query: { session },
      user: 'alice',
      gracePeriodSeconds: 5,
    });
    const accepted = await h.fact(killAccepted, 'kill-tree');
    const uuid = (i: number) => processUuid('boot-tree', i);
    expect(accepted.data).toMatchObject({
      kind: 'kill',
      session,
      gracePeriodSeconds: 5,
      stages: [[uuid(3), uuid(4)], [uuid(2)], [uuid(1)], [uuid(0)]],
    });
    await h.until(
      () => h.pods(session),
      (pods) => pods.length === 0,
    );
    recorder.stop();
    const at = (name: string) => recorder.deleted.indexOf(name);
    expect(recorder.deleted).toHaveLength(5);
    expect(Math.max(at('ru-01'), at('ru-02'))).toBeLessThan(at('seg'));
    expect(at('seg')).toBeLessThan(at('root'));
    expect(at('root')).toBeLessThan(at('local-connection-server'));
    expect(recorder.exitCodes.get('ru-01')).toBe(143);
  });
});

describe('terminate', () => {
  it('kills the whole session, then its namespace goes', async () => {
    const session = h.session('term');
    const processes = [controller('root', '0'), controller('seg', '0.1'), app('ru-01', '0.1.1')];
    await h.send('boot-term', CommandType.boot, { session, user: 'bob', processes });
    await h.factCount(processBooted, 'boot-term', 3);
    await h.send('terminate-term', CommandType.terminate, { session, user: 'bob' });
    const accepted = await h.fact(killAccepted, 'terminate-term');
    expect(accepted.data).toMatchObject({ kind: 'terminate', session, gracePeriodSeconds: 30 });
    expect((accepted.data.stages as string[][]).map((s) => s.length)).toEqual([1, 1, 1]);
    await h.until(
      () => h.namespaceExists(session),
      (exists) => !exists,
      90_000,
    );
  });
});

describe('restart', () => {
  let session: string;
  const uuid = (i: number) => processUuid('boot-restart', i);

  beforeAll(async () => {
    session = h.session('restart');
    const processes = [app('ru-01', '0.1.1'), app('ru-02', '0.1.2'), app('ru-03', '0.1.3')];
    await h.send('boot-restart', CommandType.boot, { session, user: 'carol', processes });
    await h.factCount(processBooted, 'boot-restart', 3);
  });

  it('kills the one process, waits for it to go, boots it with the same uuid', async () => {
    const old = (await h.pods(session)).find((p) => p.metadata!.name === 'ru-01')!;
    const query = { session, names: ['^ru-01$'] };
    await h.send('restart-ru-01', CommandType.restart, { query, user: 'carol' });
    const accepted = await h.fact(killAccepted, 'restart-ru-01');
    expect(accepted.data).toMatchObject({ kind: 'restart', stages: [[uuid(0)]] });
    const booted = await h.fact(processBooted, 'restart-ru-01');
    const process = booted.data.process as { uuid: string; podUid: string };
    expect(process.uuid).toBe(uuid(0));
    expect(process.podUid).not.toBe(old.metadata!.uid);
    const now = (await h.pods(session)).find((p) => p.metadata!.name === 'ru-01')!;
    expect(now.metadata!.uid).toBe(process.podUid);
    expect(now.metadata!.labels![h.labels.uuid]).toBe(uuid(0));
    expect(now.metadata!.annotations![h.labels.commandAnnotation]).toBe('restart-ru-01');
    expect(h.janitor!.released.has(old.metadata!.uid!)).toBe(true);

    // Redelivered: no third pod, the same facts again.
    await h.send('restart-ru-01', CommandType.restart, { query, user: 'carol' });
    await h.factCount(processBooted, 'restart-ru-01', 2);
    expect(new Set(h.facts(processBooted, 'restart-ru-01').map((e) => e.id)).size).toBe(1);
    const after = (await h.pods(session)).find((p) => p.metadata!.name === 'ru-01')!;
    expect(after.metadata!.uid).toBe(process.podUid);
  });

  it('resumes from its restart record when the old pod went before a crash', async () => {
    const { restartRecord } = await import('../../apps/boot-worker/src/restart/restart-record');
    const old = (await h.pods(session)).find((p) => p.metadata!.name === 'ru-03')!;
    const spec = JSON.parse(old.metadata!.annotations![h.labels.specAnnotation]);
    const record = restartRecord(h.labels, 'restart-resumed', {
      uuid: uuid(2),
      session,
      user: 'carol',
      spec,
    });
    await h.core.createNamespacedConfigMap({ namespace: session, body: record });
    await h.core.deleteNamespacedPod({ namespace: session, name: 'ru-03', gracePeriodSeconds: 0 });
    await h.until(
      () => h.pods(session),
      (pods) => !pods.some((p) => p.metadata!.name === 'ru-03'),
    );
    await h.send('restart-resumed', CommandType.restart, {
      query: { session, names: ['^ru-03$'] },
      user: 'carol',
    });
    const booted = await h.fact(processBooted, 'restart-resumed');
    expect((booted.data.process as { uuid: string }).uuid).toBe(uuid(2));
    await h.until(
      () => h.core.listNamespacedConfigMap({ namespace: session }),
      (list) => !list.items.some((c) => c.metadata!.name === record.metadata!.name),
    );
  });

  it('answers logs with what the node could serve (kwok serves none)', async () => {
    await h.send('logs-ru-02', CommandType.logs, {
      query: { session, names: ['^ru-02$'] },
      user: 'carol',
      tailLines: 10,
    });
    const fetched = await h.fact(ProcessEventType.logsFetched, 'logs-ru-02');
    expect(fetched.data.uuid).toBe(uuid(1));
    expect(fetched.data.lines).toEqual([
      // A simulated node's kubelet is on 127.0.0.2 with nobody listening: refused at once.
      expect.stringMatching(/^Could not retrieve logs of ru-02 \(.*\): .*connection refused/),
    ]);
  });
});

describe('failures', () => {
  it('escalates to grace 0 for a process that ignores SIGTERM', async () => {
    const session = h.session('stubborn');
    const processes = [
      app('stubborn', '0.1.1', { annotations: { 'sim.kpm.daq/stop-ms': '600000' } }),
    ];
    await h.send('boot-stubborn', CommandType.boot, { session, user: 'dave', processes });
    await h.fact(processBooted, 'boot-stubborn');
    // Booted is the pod's creation: only a running process can ignore SIGTERM. Killed while still
    // Pending (kwok's queue long behind a neighbour's thousand pods) it ends at once, before start.
    await h.until(
      () => h.core.readNamespacedPod({ namespace: session, name: 'stubborn' }),
      (pod) => pod.status?.phase === 'Running',
    );
    const recorder = await h.recordPods(session);
    const started = Date.now();
    await h.send('kill-stubborn', CommandType.kill, {
      query: { session },
      user: 'dave',
      gracePeriodSeconds: 1,
    });
    await h.until(
      () => Promise.resolve(recorder.exitCodes.get('stubborn')),
      (code) => code !== undefined,
    );
    recorder.stop();
    expect(recorder.exitCodes.get('stubborn')).toBe(137);
    expect(Date.now() - started).toBeGreaterThanOrEqual(6_000); // grace 1 s + margin 5 s
  });

  it('fails single processes with the reason, boots the rest', async () => {
    // A root controller that fails fails everything after it (drunc's boot order): see
    // boot-order.test.ts. Here it boots, and one application cannot be placed.
    const session = h.session('fail');
    const processes = [
      controller('root', '0'),
      app('pinned', '0.1.1', { restriction: { allowedHosts: ['no-such-node'] } }),
      app('fine', '0.1.2'),
    ];
    await h.send('boot-fail', CommandType.boot, { session, user: 'erin', processes });
    const [failed] = await h.factCount(processBootFailed, 'boot-fail', 1);
    expect(failed.data).toMatchObject({
      name: 'pinned',
      error: {
        code: 'NodeNotUsable',
        message: 'no allowed host is Ready and schedulable: no-such-node (not part of the cluster)',
      },
    });
    const booted = await h.factCount(processBooted, 'boot-fail', 2);
    expect(booted.map((e) => (e.data.process as { podName: string }).podName).sort()).toEqual([
      'fine',
      'root',
    ]);
  });
});

describe('sessions over time', () => {
  it('frees a name once its process ended: booting it again replaces the dead pod', async () => {
    const session = h.session('crash');
    const crashing = app('ru-01', '0.1.1', {
      annotations: { 'sim.kpm.daq/exit-code': '3', 'sim.kpm.daq/run-ms': '200' },
    });
    await h.send('boot-crash', CommandType.boot, { session, user: 'frank', processes: [crashing] });
    const first = await h.fact(processBooted, 'boot-crash');
    const dead = await h.until(
      () => h.pods(session),
      (pods) => pods[0]?.status?.phase === 'Failed' && !pods[0].metadata!.finalizers?.length,
    );
    expect(dead[0].status!.containerStatuses![0].state!.terminated!.exitCode).toBe(3);
    await h.send('boot-again', CommandType.boot, {
      session,
      user: 'frank',
      processes: [app('ru-01', '0.1.1')],
    });
    const again = await h.fact(processBooted, 'boot-again');
    const podUid = (e: typeof first) => (e.data.process as { podUid: string }).podUid;
    expect(podUid(again)).not.toBe(podUid(first));
    const pods = await h.pods(session);
    expect(pods.map((p) => p.metadata!.uid)).toEqual([podUid(again)]);
  });

  it('waits out a Terminating namespace of the same session, then boots into a new one', async () => {
    const session = h.session('reboot');
    const processes = [controller('root', '0'), app('ru-01', '0.1.1')];
    await h.send('boot-first', CommandType.boot, { session, user: 'gina', processes });
    await h.factCount(processBooted, 'boot-first', 2);
    const before = await h.core.readNamespace({ name: session });
    await h.send('terminate-first', CommandType.terminate, { session, user: 'gina' });
    await h.send('boot-second', CommandType.boot, { session, user: 'gina', processes });
    await h.factCount(processBooted, 'boot-second', 2, 150_000);
    expect(h.facts(processBootFailed, 'boot-second')).toEqual([]);
    const after = await h.core.readNamespace({ name: session });
    expect(after.metadata!.uid).not.toBe(before.metadata!.uid);
    expect((await h.pods(session)).map((p) => p.metadata!.name).sort()).toEqual(['root', 'ru-01']);
  });
});

describe('metrics', () => {
  it('counts commands, processes by outcome and kill escalations on /metrics', async () => {
    const text = await (await fetch(`${await h.app!.getUrl()}/metrics`)).text();
    const value = (series: string) =>
      Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(
      value('kpm_boot_worker_processes_total{outcome="booted",code="",service="boot-worker"}'),
    ).toBeGreaterThanOrEqual(20);
    expect(
      value(
        'kpm_boot_worker_processes_total{outcome="boot_failed",code="NodeNotUsable",service="boot-worker"}',
      ),
    ).toBe(1);
    expect(
      value('kpm_boot_worker_kill_escalations_total{service="boot-worker"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value(
        `kpm_boot_worker_commands_total{type="${CommandType.restart}",outcome="carried_out",service="boot-worker"}`,
      ),
    ).toBe(3);
  });
});
