/**
 * The simulator held to reality: one table of process lifecycles, each played on a kwok node
 * (driven by the simulation annotations, docs/design.md §7.2) and on the real node (a real
 * process: kpm's DAQ stand-in, bash, sleep), and the termination record kpm's watcher publishes
 * must be the same on both — exit code, reason, signal. Where kwok cannot be the same, the row
 * says why (`kwokDiffers`), and that is a documented property of kwok.
 *
 * The pods are kpm's own (built by the boot-worker's PodBuilder: labels, finalizer, bash command
 * line), created here so a row can hold what a boot never makes (an init container, a volume that
 * cannot be mounted); the real watcher records them.
 */
import { randomBytes } from 'node:crypto';
import type { V1Pod } from '@kubernetes/client-node';
import type { INestApplication } from '@nestjs/common';
import { KubeConfig, CoreV1Api } from '@kubernetes/client-node';
import { topicName, type ProcessSpec, type Role } from '@kpm/contracts';
import { createKubeApis, KpmLabels, ObjectWaiter } from '@kpm/kube';
import { runService } from '@kpm/service-kit';
import { PodBuilder } from '../../apps/boot-worker/src/boot/pod-builder';
import { WatcherModule } from '../../apps/watcher/src/watcher.module';
import { realNode, standin } from '../support/real-node';
import { testSettings } from '../support/services';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';
import { TopicProbe } from '../support/topic-probe';

jest.setTimeout(300_000);

interface Outcome {
  exitCode: number;
  reason: string;
  signal?: number;
}

interface Scenario {
  name: string;
  /** What the real process runs (kpm's bash command line execs the last word list). */
  real: Partial<ProcessSpec>;
  /** The simulation annotations that play the same on kwok. */
  kwok: Record<string, string>;
  /** kpm's role for the pod: applications get drunc's `kill -QUIT 1` preStop. */
  role?: Role;
  /** Deleted (as a kill does) once Ready, with this grace period. */
  deleteAfterReady?: number;
  /**
   * Deleted while it is being created: on the real node once the kubelet reports its container
   * ContainerCreating; on kwok at once (kwok reports nothing of a pod before it runs).
   */
  deleteWhileCreating?: boolean;
  /** Changes to the pod a boot never makes. */
  tweak?: (pod: V1Pod) => void;
  expected: Outcome;
  /** What kwok gives instead, and why (a property of the simulator, docs/design.md §7.2). */
  kwokDiffers?: { outcome: Outcome; why: string };
}

const PORT = '7070';
const probe = { tcpSocket: { port: 7070 }, periodSeconds: 1 };

const SCENARIOS: Scenario[] = [
  {
    name: 'exit-0',
    real: { executableAndArguments: standin('--exit', '0', '--after', '300ms') },
    kwok: { 'sim.kpm.daq/exit-code': '0', 'sim.kpm.daq/run-ms': '300' },
    expected: { exitCode: 0, reason: 'GracefulShutdown' },
  },
  {
    name: 'exit-3',
    real: { executableAndArguments: standin('--exit', '3', '--after', '300ms') },
    kwok: { 'sim.kpm.daq/exit-code': '3', 'sim.kpm.daq/run-ms': '300' },
    expected: { exitCode: 3, reason: 'Error' },
  },
  {
    name: 'term-handled-exit-0',
    real: { executableAndArguments: standin('--port', PORT) },
    kwok: { 'sim.kpm.daq/graceful': 'true' },
    deleteAfterReady: 10,
    expected: { exitCode: 0, reason: 'GracefulShutdown' },
  },
  {
    name: 'term-handled-exit-5',
    real: { executableAndArguments: standin('--port', PORT, '--term-exit', '5') },
    kwok: { 'sim.kpm.daq/stop-exit-code': '5' },
    deleteAfterReady: 10,
    expected: { exitCode: 5, reason: 'Error' },
  },
  {
    // `exec sleep`: PID 1 with SIGTERM's default action, which the kernel does not deliver to it.
    name: 'term-unhandled-by-pid-1',
    real: { executableAndArguments: [{ exec: 'sleep', args: ['3600'] }] },
    kwok: { 'sim.kpm.daq/ignore-term': 'true' },
    deleteAfterReady: 2,
    expected: { exitCode: 137, reason: 'Error', signal: 9 },
  },
  {
    name: 'term-ignored',
    real: { executableAndArguments: standin('--port', PORT, '--ignore-term') },
    kwok: { 'sim.kpm.daq/ignore-term': 'true' },
    deleteAfterReady: 2,
    expected: { exitCode: 137, reason: 'Error', signal: 9 },
  },
  {
    name: 'oom-killed',
    real: {
      executableAndArguments: standin('--memory', '256Mi'),
      resources: { limits: { memory: '64Mi' } },
    },
    kwok: {
      'sim.kpm.daq/exit-code': '137',
      'sim.kpm.daq/exit-reason': 'OOMKilled',
      'sim.kpm.daq/run-ms': '300',
    },
    expected: { exitCode: 137, reason: 'OOMKilled', signal: 9 },
  },
  {
    name: 'image-not-pullable',
    real: { image: 'localhost/kpm/nowhere:missing', executableAndArguments: standin() },
    kwok: {},
    tweak: (pod) => (pod.spec!.containers[0].image = 'localhost/kpm/nowhere:missing'),
    expected: { exitCode: -1, reason: 'ErrImagePull' },
  },
  {
    name: 'secret-missing',
    real: {
      executableAndArguments: standin(),
      secretEnv: [{ name: 'DB_PASSWORD', secretKeyRef: { name: 'no-such-secret', key: 'pw' } }],
    },
    kwok: { 'sim.kpm.daq/waiting-reason': 'CreateContainerConfigError' },
    expected: { exitCode: -1, reason: 'CreateContainerConfigError' },
  },
  {
    name: 'init-container-fails',
    real: { executableAndArguments: standin() },
    kwok: { 'sim.kpm.daq/init-exit-code': '4' },
    tweak: (pod) => {
      const main = pod.spec!.containers[0];
      pod.spec!.initContainers = [
        {
          name: 'init',
          image: main.image,
          command: ['/bin/bash', '-c', 'exit 4'],
          securityContext: main.securityContext,
        },
      ];
    },
    expected: { exitCode: 4, reason: 'Error' },
  },
  {
    // A volume that cannot be mounted keeps the real pod in ContainerCreating; start-ms, kwok's.
    name: 'deleted-before-start',
    real: { executableAndArguments: standin() },
    kwok: { 'sim.kpm.daq/start-ms': '600000' },
    deleteWhileCreating: true,
    tweak: (pod) => {
      pod.spec!.volumes = [
        ...(pod.spec!.volumes ?? []),
        { name: 'absent', configMap: { name: 'no-such-config-map' } },
      ];
      pod.spec!.containers[0].volumeMounts = [{ name: 'absent', mountPath: '/absent' }];
    },
    expected: { exitCode: -1, reason: 'DeletedBeforeStart' },
  },
  {
    // drunc's preStop `kill -QUIT 1`: the application's SIGQUIT handler ends it before SIGTERM.
    name: 'prestop-quit',
    role: 'application',
    real: {
      executableAndArguments: standin('--port', PORT, '--quit-exit', '0', '--term-exit', '7'),
    },
    kwok: { 'sim.kpm.daq/graceful': 'true' },
    deleteAfterReady: 10,
    expected: { exitCode: 0, reason: 'GracefulShutdown' },
  },
];

const suffix = randomBytes(3).toString('hex');
const prefix = uniqueTopicPrefix('scenarios');
const domain = `scenarios-${suffix}.test.daq`;
const namespace = `scenarios-${suffix}`;
const target = realNode();
const kubeconfig = new KubeConfig();
let core: CoreV1Api;
let watcher: INestApplication;
let terminations: TopicProbe;

beforeAll(async () => {
  kubeconfig.loadFromFile(stackEnv().kubeconfig!);
  core = kubeconfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const settings = testSettings('watcher', prefix, { KPM_LABEL_DOMAIN: domain });
  watcher = await runService(WatcherModule.register(settings), settings);
  terminations = await new TopicProbe(stackEnv().brokers, [
    topicName('terminations', prefix),
  ]).start();
}, 120_000);

afterAll(async () => {
  await terminations?.stop();
  await watcher?.close();
  await core?.deleteNamespace({ name: namespace }).catch(() => undefined);
}, 60_000);

const builder = (image: string) =>
  new PodBuilder(
    new KpmLabels(domain),
    testSettings('boot-worker', prefix, {
      KPM_LABEL_DOMAIN: domain,
      KPM_DEFAULT_IMAGE: image,
      KPM_KILL_TIMEOUT_SECONDS: '10',
      // The scenarios' processes serve the same port side by side: in the pod network.
      KPM_NETWORK: 'pod',
    }),
  );

function podOf(scenario: Scenario, kind: 'kwok' | 'real'): V1Pod {
  const name = `${scenario.name}-${kind}`;
  const spec: ProcessSpec & { uuid: string } = {
    uuid: `${name}-${suffix}`,
    name,
    executableAndArguments: standin(),
    ...(kind === 'real' ? scenario.real : {}),
    annotations: kind === 'kwok' ? scenario.kwok : {},
  };
  const role = scenario.role ?? 'segment-controller';
  const process = { index: 0, uuid: spec.uuid, spec, role };
  const context = { session: namespace, user: 'alice', commandId: `scenario-${suffix}` };
  const node = kind === 'real' ? target.node : 'kpm-node-1';
  const pod = builder(kind === 'real' ? target.image : 'kpm.invalid/daq-app:1.0').pod(
    process,
    context,
    { nodeName: node },
  );
  // Ready once the stand-in serves its port (its signal handlers are set by then).
  const serves = JSON.stringify(spec.executableAndArguments).includes('--port');
  if (scenario.deleteAfterReady && serves) pod.spec!.containers[0].readinessProbe = probe;
  scenario.tweak?.(pod);
  return pod;
}

const isReady = (pod: V1Pod | undefined): boolean =>
  pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

const isCreating = (pod: V1Pod | undefined): boolean =>
  pod?.status?.containerStatuses?.some((s) => s.state?.waiting?.reason === 'ContainerCreating') ??
  false;

async function waitFor(pod: V1Pod, what: string, done: (pod?: V1Pod) => boolean): Promise<void> {
  const { metadata } = pod;
  const result = await new ObjectWaiter(createKubeApis(stackEnv().kubeconfig).watch).waitFor<V1Pod>(
    {
      path: `/api/v1/namespaces/${namespace}/pods`,
      list: () => core.listNamespacedPod({ namespace }),
      keys: [metadata!.uid!],
      keyOf: (p) => p.metadata?.uid,
      done,
      timeoutMs: 60_000,
    },
  );
  if (result.pending.length > 0) throw new Error(`${metadata!.name} was not ${what} within 60 s`);
}

async function play(scenario: Scenario, kind: 'kwok' | 'real'): Promise<Outcome> {
  const created = await core.createNamespacedPod({ namespace, body: podOf(scenario, kind) });
  const name = created.metadata!.name!;
  if (scenario.deleteWhileCreating) {
    if (kind === 'real') await waitFor(created, 'ContainerCreating', isCreating);
    await core.deleteNamespacedPod({ name, namespace });
  } else if (scenario.deleteAfterReady) {
    await waitFor(created, 'Ready', isReady);
    await core.deleteNamespacedPod({
      name,
      namespace,
      gracePeriodSeconds: scenario.deleteAfterReady,
    });
  }
  const record = await terminations.waitFor(
    (r) => r.event?.data?.podUid === created.metadata!.uid,
    120_000,
  );
  const data = record.event!.data as unknown as Outcome;
  return {
    exitCode: data.exitCode,
    reason: data.reason,
    ...(data.signal !== undefined ? { signal: data.signal } : {}),
  };
}

describe.each(SCENARIOS)('$name', (scenario) => {
  it('ends on the real node as the table says', async () => {
    expect(await play(scenario, 'real')).toEqual(scenario.expected);
  });

  it('ends on a kwok node the same way', async () => {
    const expected = scenario.kwokDiffers?.outcome ?? scenario.expected;
    expect(await play(scenario, 'kwok')).toEqual(expected);
  });
});
