import type { BootCommand, FieldError, RestartCommand } from '@kpm/contracts';
import {
  KUEUE_ADMISSION_GATE,
  KUEUE_GROUP_TOTAL_ANNOTATION,
  KUEUE_POD_FINALIZER,
  KUEUE_POD_GROUP_LABEL,
  KUEUE_QUEUE_NAME_LABEL,
} from '@kpm/kube';
import { fixture, SESSION, TREE, USER, type Fixture } from '../__fixtures__/boot-worker-fixture';
import { FAKE_QUOTA_SHORT, type FakeClusterOptions } from '../__fixtures__/fake-cluster';
import { podGroupOf } from './kueue-pod-group';

/** kpm with Kueue pod groups: no node named by kpm, a ClusterQueue named. */
const KUEUE_ENV = {
  KPM_ASSIGN_NODES: 'false',
  KPM_KUEUE_CLUSTER_QUEUE: 'daq-quota',
  KPM_KUEUE_ADMISSION_TIMEOUT_SECONDS: '30',
};

function kueueFixture(options: FakeClusterOptions = {}): Fixture {
  return fixture({ kueue: { admits: true }, ...options, env: KUEUE_ENV });
}

const boot = (processes = TREE, allOrNothing = true): BootCommand => ({
  session: SESSION,
  user: USER,
  processes,
  allOrNothing,
});

async function run(f: Fixture, command: BootCommand, id = 'boot-1'): Promise<FieldError[]> {
  return f.handlers.boot.handle(command, f.context(id));
}

/** `name booted` or `name CODE: message`, sorted. */
function outcomes(f: Fixture): string[] {
  const booted = f.factsOf('process.booted').map((e) => {
    const { process } = e.data as { process: { description: { metadata: { name: string } } } };
    return `${process.description.metadata.name} booted`;
  });
  const failed = f.factsOf('process.boot-failed').map((e) => {
    const { code, message } = e.data.error as { code: string; message: string };
    return `${e.data.name as string} ${code}: ${message}`;
  });
  return [...booted, ...failed].sort();
}

const GATE = 'drunc.daq/boot-order';
const GROUP = podGroupOf('boot-1', 'kpm', TREE.length).name;

describe('PodGroupBoot: an all-or-nothing boot as one Kueue pod group', () => {
  it('makes every pod at once, later stages behind its gate, and lifts the gates in drunc’s order once Kueue admits the group', async () => {
    const f = kueueFixture();
    expect(await run(f, boot())).toEqual([]);
    expect(f.cluster.timeline(/localqueue|pod|kueue/)).toEqual([
      '+0s create localqueue run-7/kpm for daq-quota',
      '+0s create pod run-7/local-connection-server',
      '+0s create pod run-7/root',
      '+0s create pod run-7/ru-01',
      '+0s create pod run-7/seg',
      '+0s create pod run-7/ru-02',
      `+0.05s kueue admits run-7/${GROUP}`,
      '+1.05s ready pod run-7/local-connection-server',
      `+1.05s ungate pod run-7/root ${GATE}`,
      '+2.05s ready pod run-7/root',
      `+2.05s ungate pod run-7/ru-01 ${GATE}`,
      `+2.05s ungate pod run-7/seg ${GATE}`,
      `+2.05s ungate pod run-7/ru-02 ${GATE}`,
    ]);
    expect(outcomes(f)).toEqual(TREE.map((p) => `${p.name} booted`).sort());
    for (const p of TREE) {
      const pod = f.cluster.pod(SESSION, p.name)!;
      expect(pod.metadata?.labels).toMatchObject({
        [KUEUE_QUEUE_NAME_LABEL]: 'kpm',
        [KUEUE_POD_GROUP_LABEL]: GROUP,
      });
      expect(pod.metadata?.annotations?.[KUEUE_GROUP_TOTAL_ANNOTATION]).toBe('5');
      expect(pod.spec?.nodeName).toBeUndefined();
      expect(pod.spec?.schedulingGates).toEqual([]);
    }
  });

  it('gives the later pods the connection server’s Service address as localhost, known before it runs', async () => {
    const f = kueueFixture();
    await run(f, boot());
    const service = f.cluster.service(SESSION, 'local-connection-server')!;
    expect(service.spec?.clusterIP).toMatch(/^10\.96\./);
    for (const name of ['root', 'seg', 'ru-01'])
      expect(f.cluster.pod(SESSION, name)?.spec?.hostAliases).toEqual([
        { ip: service.spec!.clusterIP, hostnames: ['localhost'] },
      ]);
  });

  it('fails every process with Kueue’s reason when the group is not admitted in time, and leaves no pod', async () => {
    const f = kueueFixture({ kueue: { admits: false } });
    expect(await run(f, boot())).toEqual([]);
    const why =
      `NotAdmitted: not booted: Kueue did not admit the pod group ${GROUP} (5 pods, LocalQueue run-7/kpm, ` +
      'ClusterQueue daq-quota) within 30 s (podManagement.kueue.admissionTimeoutSeconds): ' +
      `QuotaReserved Pending: ${FAKE_QUOTA_SHORT}`;
    expect(outcomes(f)).toEqual(TREE.map((p) => `${p.name} ${why}`).sort());
    expect(f.cluster.timeline(/delete pod/)).toHaveLength(5);
    expect(f.cluster.timeline(/delete pod/)[0]).toMatch(/^\+30s /);
    await f.cluster.clock.sleep(1_000);
    expect(f.cluster.allPods()).toEqual([]);
    expect(f.cluster.timeline(/ready|ungate/)).toEqual([]);
  });

  it('takes the held pods down when the connection server fails: they never run', async () => {
    const f = kueueFixture();
    f.cluster.scripts.set('local-connection-server', { waitingReason: 'ErrImagePull' });
    await run(f, boot());
    const lines = outcomes(f);
    expect(lines.find((l) => l.startsWith('local-connection-server'))).toMatch(/ErrImagePull/);
    for (const name of ['root', 'seg', 'ru-01', 'ru-02'])
      expect(lines.find((l) => l.startsWith(`${name} `))).toMatch(
        /^\S+ ConnectionServerFailed: not booted: the local connection server local-connection-server failed \(ErrImagePull/,
      );
    expect(f.cluster.timeline(/ungate|ready/)).toEqual([]);
    await f.cluster.clock.sleep(1_000);
    expect(f.cluster.allPods().map((p) => p.metadata!.name)).toEqual(['local-connection-server']);
  });

  it('makes no group that cannot be whole: a pod refused takes the others down, each process says why', async () => {
    const f = kueueFixture();
    // A pod that is not kpm's holds the name ru-02 in the session's namespace.
    const { creator, user } = f.cluster.labels;
    f.cluster.addNamespace(SESSION, { [creator]: 'kpm', [user]: USER });
    f.cluster.addPod({
      metadata: { name: 'ru-02', namespace: SESSION, labels: { app: 'theirs' } },
      spec: { containers: [{ name: 'main', image: 'theirs:1' }] },
    });
    expect(await run(f, boot())).toEqual([]);
    const lines = outcomes(f);
    expect(lines.find((l) => l.startsWith('ru-02'))).toMatch(
      /^ru-02 NameTaken: pod run-7\/ru-02 exists and is not kpm's/,
    );
    for (const name of ['local-connection-server', 'root', 'seg', 'ru-01'])
      expect(lines.find((l) => l.startsWith(`${name} `))).toMatch(
        new RegExp(
          `^${name} PodGroupIncomplete: not booted: the Kueue pod group ${GROUP} cannot be whole, ru-02 failed \\(NameTaken: `,
        ),
      );
    expect(f.cluster.timeline(/kueue admits/)).toEqual([]);
    await f.cluster.clock.sleep(1_000);
    expect(f.cluster.allPods().map((p) => p.metadata!.labels)).toEqual([{ app: 'theirs' }]);
  });

  it('boots a session that is not all-or-nothing as before: no group, no gate', async () => {
    const f = kueueFixture();
    await run(f, boot(TREE, false));
    expect(outcomes(f)).toEqual(TREE.map((p) => `${p.name} booted`).sort());
    expect(f.cluster.timeline(/localqueue|ungate|kueue/)).toEqual([]);
    expect(f.cluster.pod(SESSION, 'ru-01')?.metadata?.labels).not.toHaveProperty(
      KUEUE_POD_GROUP_LABEL,
    );
  });

  it('restarts a process into its group again, Kueue’s finalizer let go of its old pod first', async () => {
    const f = kueueFixture();
    await run(f, boot());
    const old = f.cluster.pod(SESSION, 'ru-01')!;
    expect(old.metadata?.finalizers).toContain(KUEUE_POD_FINALIZER);
    const restart: RestartCommand = { query: { session: SESSION, names: ['^ru-01$'] }, user: USER };
    expect(await f.handlers.restart.handle(restart, f.context('restart-1'))).toEqual([]);
    const again = f.cluster.pod(SESSION, 'ru-01')!;
    expect(again.metadata?.uid).not.toBe(old.metadata?.uid);
    expect(again.metadata?.labels).toMatchObject({
      [KUEUE_POD_GROUP_LABEL]: GROUP,
      [KUEUE_QUEUE_NAME_LABEL]: 'kpm',
    });
    // Kueue holds the replacement until it counts it in the group again, then lets it run.
    expect(again.spec?.schedulingGates).toEqual([{ name: KUEUE_ADMISSION_GATE }]);
    await f.cluster.clock.sleep(1_100);
    expect(f.cluster.pod(SESSION, 'ru-01')?.status?.phase).toBe('Running');
  });
});
