import { randomBytes } from 'node:crypto';
import { Watch, type V1Pod } from '@kubernetes/client-node';
import { eventually } from '@kpm/common';
import {
  CompletionType,
  CommandType,
  ProcessEventType,
  topicName,
  type CommandCompleted,
} from '@kpm/contracts';
import {
  KUEUE_GROUP_TOTAL_ANNOTATION,
  KUEUE_POD_GROUP_LABEL,
  KUEUE_QUEUE_NAME_LABEL,
} from '@kpm/kube';
import type { BootWorkerHarness } from '../support/boot-worker-harness';
import { KpmTrio } from '../support/kpm-trio';
import { KueueQuota } from '../support/kueue-quota';
import { stackEnv } from '../support/stack-env';
import { TopicProbe, type ProbedRecord } from '../support/topic-probe';

/**
 * kpm's Kueue pod groups against Kueue itself (v0.17.0, built from the Go module proxy and run
 * beside the stack's API server by `kpm stack up --kueue`), with the stack's kube-scheduler
 * placing what Kueue admits on kwok's nodes (docs/design.md §4 "Kueue pod groups"). A ClusterQueue
 * of 2 cpus admits a drunc tree of 5 processes asking 200m each as one Workload, and kpm releases
 * it in drunc's order; the same tree asking 1 cpu each is never admitted: every process fails
 * with Kueue's reason and no pod is left; a restart joins its group again; a kill gives the quota
 * back. The whole system runs (boot-worker, watcher, state): each command completes exactly once.
 */
jest.setTimeout(240_000);

const { processBooted, processBootFailed, killAccepted } = ProcessEventType;
const suffix = randomBytes(3).toString('hex');
const CLUSTER_QUEUE = `kpg-${suffix}`;
const ADMISSION_TIMEOUT_S = 8;

let trio: KpmTrio;
let h: BootWorkerHarness;
let quota: KueueQuota;
let completions: TopicProbe;

function completionOf(r: ProbedRecord): CommandCompleted | undefined {
  return r.event?.type === CompletionType.commandCompleted
    ? (r.event.data as unknown as CommandCompleted)
    : undefined;
}

/** The command's completion, once the state service sends it. */
async function completion(commandId: string): Promise<CommandCompleted> {
  const found = await completions.waitFor((r) => completionOf(r)?.commandId === commandId, 120_000);
  return completionOf(found)!;
}

/** drunc's tree: its connection server, root controller, a segment and two applications. */
function tree(cpu: string) {
  const resources = { requests: { cpu, memory: '64Mi' }, limits: { cpu, memory: '64Mi' } };
  const app = (name: string, treeId: string, exec: string, args: string[] = []) => ({
    name,
    treeId,
    executableAndArguments: [{ exec, args }],
    resources,
  });
  return [
    app('local-connection-server', '2', 'gunicorn', ['-b', '0.0.0.0:30500']),
    app('root', '0', 'drunc-controller'),
    app('seg', '0.1', 'drunc-controller'),
    app('ru-01', '0.1.1', 'daq_application'),
    app('ru-02', '0.1.2', 'daq_application'),
  ];
}

/** Each pod's first binding and first Ready, in the order the API server wrote them. */
async function recordPlacement(session: string) {
  const seen: string[] = [];
  const list = await h.core.listNamespacedPod({ namespace: session });
  const controller = await new Watch(h.kubeconfig).watch(
    `/api/v1/namespaces/${session}/pods`,
    { resourceVersion: list.metadata?.resourceVersion },
    (_type: string, pod: V1Pod) => {
      const name = pod.metadata!.name!;
      const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      if (pod.spec?.nodeName && !seen.includes(`bound ${name}`)) seen.push(`bound ${name}`);
      if (ready && !seen.includes(`ready ${name}`)) seen.push(`ready ${name}`);
    },
    () => undefined,
  );
  return { seen, stop: () => controller.abort() };
}

/** Kueue writes the ClusterQueue's status a moment after it admits or lets go. */
async function cpuReservedBecomes(total: string): Promise<void> {
  await eventually(async () => (await quota.reserved('cpu')) === total, {
    what: `the ClusterQueue ${CLUSTER_QUEUE} reserving ${total} cpu`,
    timeoutMs: 60_000,
    everyMs: 250,
  });
}

beforeAll(async () => {
  if (!process.env.KPM_KUEUE_VERSION)
    throw new Error(
      'this suite needs Kueue in the stack: run `npx kpm stack up --kueue` (scripts/test-integration.sh sets KPM_STACK_KUEUE=1)',
    );
  trio = await KpmTrio.start('kpg', {
    KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
    KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
    KPM_RUN_AS_USERS: 'alice:1000:1000',
    KPM_ASSIGN_NODES: 'false',
    KPM_KUEUE_CLUSTER_QUEUE: CLUSTER_QUEUE,
    KPM_KUEUE_ADMISSION_TIMEOUT_SECONDS: String(ADMISSION_TIMEOUT_S),
  });
  h = trio.harness;
  completions = await new TopicProbe(stackEnv().brokers, [
    topicName('completions', trio.prefix),
  ]).start();
  // Admitted pods land on kwok's nodes only (the flavor's node labels become their selector).
  quota = await KueueQuota.create(h.kubeconfig, {
    name: CLUSTER_QUEUE,
    cpu: '2',
    memory: '4Gi',
    nodeLabels: { 'sim.kpm.daq/node': 'true' },
  });
}, 120_000);

afterAll(async () => {
  await completions?.stop();
  await trio?.close();
  await quota?.delete();
}, 120_000);

describe('an all-or-nothing boot as a Kueue pod group', () => {
  let session: string;
  let group: string;

  it('is admitted whole by the ClusterQueue and released in drunc’s order', async () => {
    session = h.session('fits');
    // Watched from before the namespace exists: every binding and Ready is seen, in order.
    const placement = await recordPlacement(session);
    await h.send('kpg-fits', CommandType.boot, {
      session,
      user: 'alice',
      allOrNothing: true,
      processes: tree('200m'),
    });
    const booted = await h.factCount(processBooted, 'kpg-fits', 5);
    expect(booted).toHaveLength(5);
    expect(h.facts(processBootFailed, 'kpg-fits')).toEqual([]);
    const pods = await h.podsRunning(session);
    placement.stop();
    expect(pods).toHaveLength(5);
    group = pods[0].metadata!.labels![KUEUE_POD_GROUP_LABEL];
    for (const pod of pods) {
      expect(pod.metadata?.labels).toMatchObject({
        [KUEUE_QUEUE_NAME_LABEL]: 'kpm',
        [KUEUE_POD_GROUP_LABEL]: group,
      });
      expect(pod.metadata?.annotations?.[KUEUE_GROUP_TOTAL_ANNOTATION]).toBe('5');
      expect(pod.spec?.schedulingGates ?? []).toEqual([]);
      // Kueue's flavor placed it: a kwok node, by the scheduler.
      expect(pod.spec?.nodeSelector).toMatchObject({ 'sim.kpm.daq/node': 'true' });
      expect(pod.spec?.nodeName).toMatch(/^kpm-node-/);
    }
    const conditions = (await quota.workload(session, group))?.status?.conditions ?? [];
    expect(conditions).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'Admitted', status: 'True' })]),
    );
    // drunc's order: nothing after the connection server is placed before it is Ready, nor
    // anything after the root controller before the root is.
    const at = (what: string) => placement.seen.indexOf(what);
    const after = (later: string, first: string) => ({
      later,
      first,
      boundAfter: at(`ready ${first}`) >= 0 && at(`bound ${later}`) > at(`ready ${first}`),
    });
    for (const later of ['root', 'seg', 'ru-01', 'ru-02'])
      expect(after(later, 'local-connection-server')).toMatchObject({ boundAfter: true });
    for (const later of ['seg', 'ru-01', 'ru-02'])
      expect(after(later, 'root')).toMatchObject({ boundAfter: true });
    // The others reach the connection server by its Service's address, known before it ran.
    const service = await h.core.readNamespacedService({
      namespace: session,
      name: 'local-connection-server',
    });
    const ru01 = pods.find((p) => p.metadata!.name === 'ru-01')!;
    expect(ru01.spec?.hostAliases).toEqual([
      { ip: service.spec!.clusterIP, hostnames: ['localhost'] },
    ]);
    await cpuReservedBecomes('1');
    const done = await completion('kpg-fits');
    expect(done).toMatchObject({ commandType: CommandType.boot, status: 'succeeded' });
    expect(done.processes).toHaveLength(5);
  });

  it('restarts a process into its group: Kueue counts the new pod in and lets it run', async () => {
    const old = (await h.pods(session)).find((p) => p.metadata!.name === 'ru-01')!;
    await h.send('kpg-restart', CommandType.restart, {
      query: { session, names: ['^ru-01$'] },
      user: 'alice',
    });
    const booted = await h.fact(processBooted, 'kpg-restart');
    expect((booted.data.process as { podUid: string }).podUid).not.toBe(old.metadata!.uid);
    const again = await h.until(
      async () => (await h.pods(session)).find((p) => p.metadata!.name === 'ru-01'),
      (pod) => pod?.status?.phase === 'Running' && pod.metadata!.uid !== old.metadata!.uid,
    );
    expect(again!.metadata?.labels?.[KUEUE_POD_GROUP_LABEL]).toBe(group);
    expect(again!.spec?.schedulingGates ?? []).toEqual([]);
    await cpuReservedBecomes('1');
  });

  it('gives the quota back when the session is killed: no pod, no Workload', async () => {
    await h.send('kpg-kill', CommandType.kill, {
      query: { session },
      user: 'alice',
      gracePeriodSeconds: 2,
    });
    await h.fact(killAccepted, 'kpg-kill');
    await h.until(
      () => h.pods(session),
      (pods) => pods.length === 0,
    );
    await eventually(async () => (await quota.workload(session, group)) === undefined, {
      what: `the Workload ${group} gone with its pods`,
      timeoutMs: 60_000,
      everyMs: 250,
    });
    await cpuReservedBecomes('0');
  });

  it('fails every process with Kueue’s reason when the quota is short, and leaves no pod', async () => {
    const short = h.session('short');
    await h.send('kpg-short', CommandType.boot, {
      session: short,
      user: 'alice',
      allOrNothing: true,
      processes: tree('1'),
    });
    const failed = await h.factCount(processBootFailed, 'kpg-short', 5);
    expect(h.facts(processBooted, 'kpg-short')).toEqual([]);
    for (const fact of failed) {
      const error = fact.data.error as { code: string; message: string };
      expect(error.code).toBe('NotAdmitted');
      expect(error.message).toMatch(
        new RegExp(
          `^not booted: Kueue did not admit the pod group kpm-[0-9a-f]{20} \\(5 pods, LocalQueue ${short}/kpm, ClusterQueue ${CLUSTER_QUEUE}\\) within ${ADMISSION_TIMEOUT_S} s \\(podManagement\\.kueue\\.admissionTimeoutSeconds\\): QuotaReserved Pending: .*insufficient quota for cpu`,
        ),
      );
    }
    // The watcher recorded the end of pods that never ran, and let them go.
    await h.until(
      () => h.pods(short),
      (pods) => pods.length === 0,
    );
    await cpuReservedBecomes('0');
    const done = await completion('kpg-short');
    expect(done.status).toBe('failed');
    expect(done.processes).toEqual([]);
    expect(done.errors).toHaveLength(5);
    for (const error of done.errors ?? []) expect(error.message).toMatch(/Kueue did not admit/);
  });

  it('completed each command exactly once', () => {
    const ids = completions.records.flatMap((r) => completionOf(r)?.commandId ?? []);
    for (const id of ['kpg-fits', 'kpg-restart', 'kpg-kill', 'kpg-short'])
      expect([id, ids.filter((c) => c === id).length]).toEqual([id, 1]);
  });
});
