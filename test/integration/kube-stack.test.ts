import { randomBytes } from 'node:crypto';
import {
  ApiException,
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  VersionApi,
  Watch,
  setHeaderOptions,
  type V1Pod,
} from '@kubernetes/client-node';
import { KubeStack } from '@kpm/stack';

/**
 * The local control plane is a real one (etcd + kube-apiserver) and kwok keeps the simulation
 * contract of DESIGN.md §7 (stack/kube/kwok.yaml). Every wait is on a watch event with a deadline.
 */

/** Pods as the watch delivers them: plain JSON, timestamps as strings. */
interface PodJson {
  metadata: {
    name: string;
    resourceVersion: string;
    deletionTimestamp?: string;
    deletionGracePeriodSeconds?: number;
    finalizers?: string[];
  };
  status?: {
    phase?: string;
    containerStatuses?: {
      name: string;
      state?: {
        running?: object;
        waiting?: { reason?: string };
        terminated?: { exitCode: number; reason?: string };
      };
    }[];
  };
}

interface PodEvent {
  type: string;
  pod: PodJson;
}

const FINALIZER = 'drunc.daq/termination-record';
const DEADLINE_MS = 30000;

let kc: KubeConfig;
let core: CoreV1Api;
let namespace: string;

beforeAll(async () => {
  // Idempotent: a second up() against a running stack only checks readiness.
  const env = await new KubeStack({ progress: () => undefined }).up();
  kc = new KubeConfig();
  kc.loadFromFile(env.KUBECONFIG);
  core = kc.makeApiClient(CoreV1Api);
  namespace = `kpm-kube-test-${randomBytes(3).toString('hex')}`;
  await core.createNamespace({
    body: { metadata: { name: namespace, labels: { 'creator.drunc.daq': 'kpm' } } },
  });
});

afterAll(async () => {
  if (core && namespace) await core.deleteNamespace({ name: namespace }).catch(() => undefined);
});

function podBody(
  name: string,
  options: {
    annotations?: Record<string, string>;
    finalizers?: string[];
    image?: string;
    node?: string;
  } = {},
): V1Pod {
  return {
    metadata: { name, annotations: options.annotations, finalizers: options.finalizers },
    spec: {
      // No scheduler runs: the pod is bound to a fake node directly.
      nodeName: options.node ?? 'kpm-node-1',
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 30,
      containers: [
        {
          name: 'main',
          image: options.image ?? 'kpm.invalid/daq-app:1.0',
          command: ['/bin/bash', '-c', 'true'],
        },
      ],
    },
  };
}

/**
 * Collects a pod's events from `resourceVersion` (or from a fresh list) until `done` says so.
 * Resolves with every event seen; rejects at the deadline with what was seen.
 */
async function watchPod(
  name: string,
  done: (event: PodEvent, seen: PodEvent[]) => boolean,
  options: { resourceVersion?: string; afterStart?: () => Promise<unknown> } = {},
): Promise<PodEvent[]> {
  let resourceVersion = options.resourceVersion;
  const seen: PodEvent[] = [];
  if (resourceVersion === undefined) {
    const list = await core.listNamespacedPod({
      namespace,
      fieldSelector: `metadata.name=${name}`,
    });
    resourceVersion = list.metadata?.resourceVersion;
    for (const item of list.items) {
      const event = { type: 'EXISTING', pod: JSON.parse(JSON.stringify(item)) as PodJson };
      seen.push(event);
      if (done(event, seen)) return seen;
    }
  }
  let abort: AbortController | undefined;
  const result = new Promise<PodEvent[]>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new Error(
          `pod ${name}: no end after ${DEADLINE_MS} ms; saw ${JSON.stringify(summary(seen))}`,
        ),
      );
    }, DEADLINE_MS);
    const finish = (error?: unknown) => {
      clearTimeout(timer);
      abort?.abort();
      if (error) reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
      else resolve(seen);
    };
    new Watch(kc)
      .watch(
        `/api/v1/namespaces/${namespace}/pods`,
        { fieldSelector: `metadata.name=${name}`, resourceVersion, allowWatchBookmarks: false },
        (type: string, pod: PodJson) => {
          const event = { type, pod };
          seen.push(event);
          if (done(event, seen)) finish();
        },
        (error: unknown) => {
          if (error && (error as { name?: string }).name !== 'AbortError') finish(error);
        },
      )
      .then((controller) => {
        abort = controller;
        return options.afterStart?.();
      })
      .catch(finish);
  });
  return result;
}

const terminated = (pod: PodJson) => pod.status?.containerStatuses?.[0]?.state?.terminated;
const summary = (events: PodEvent[]) =>
  events.map((e) => ({
    type: e.type,
    phase: e.pod.status?.phase,
    deleting: Boolean(e.pod.metadata.deletionTimestamp),
    state: e.pod.status?.containerStatuses?.[0]?.state,
  }));

async function createAndWaitRunning(body: V1Pod): Promise<PodJson> {
  const name = body.metadata!.name!;
  const events = await watchPod(name, (e) => e.pod.status?.phase === 'Running', {
    afterStart: () => core.createNamespacedPod({ namespace, body }),
  });
  return events[events.length - 1].pod;
}

describe('local Kubernetes control plane', () => {
  it('is a real kube-apiserver with Ready kwok nodes', async () => {
    const version = await kc.makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).toMatch(/^v1\.\d+\.\d+$/);
    const nodes = await core.listNode({ labelSelector: 'sim.kpm.daq/node=true' });
    const ready = nodes.items.filter((n) =>
      n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );
    expect(ready.map((n) => n.metadata?.name).sort()).toEqual([
      'kpm-node-1',
      'kpm-node-2',
      'kpm-node-3',
    ]);
  });

  it('refuses an invalid pod name with 422', async () => {
    const error = await core
      .createNamespacedPod({ namespace, body: podBody('Not_A_Valid.Name!') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiException);
    expect((error as ApiException<unknown>).code).toBe(422);
  });

  it('runs an annotated pod for run-ms and ends it with its exit code', async () => {
    const body = podBody('exit-three', {
      annotations: { 'sim.kpm.daq/exit-code': '3', 'sim.kpm.daq/run-ms': '500' },
    });
    const events = await watchPod(
      'exit-three',
      (e) => ['Failed', 'Succeeded'].includes(e.pod.status?.phase ?? ''),
      {
        afterStart: () => core.createNamespacedPod({ namespace, body }),
      },
    );
    expect(events.some((e) => e.pod.status?.phase === 'Running')).toBe(true);
    const last = events[events.length - 1].pod;
    expect(last.status?.phase).toBe('Failed');
    expect(terminated(last)).toMatchObject({ exitCode: 3, reason: 'Error' });
    await core.deleteNamespacedPod({ name: 'exit-three', namespace, gracePeriodSeconds: 0 });
  });

  it('ends exit-code 0 as Succeeded/Completed', async () => {
    const body = podBody('exit-zero', { annotations: { 'sim.kpm.daq/exit-code': '0' } });
    const events = await watchPod(
      'exit-zero',
      (e) => ['Failed', 'Succeeded'].includes(e.pod.status?.phase ?? ''),
      {
        afterStart: () => core.createNamespacedPod({ namespace, body }),
      },
    );
    const last = events[events.length - 1].pod;
    expect(last.status?.phase).toBe('Succeeded');
    expect(terminated(last)).toMatchObject({ exitCode: 0, reason: 'Completed' });
    await core.deleteNamespacedPod({ name: 'exit-zero', namespace, gracePeriodSeconds: 0 });
  });

  it('terminates a deleted pod like SIGTERM (143), then removes it', async () => {
    const pod = await createAndWaitRunning(podBody('sigterm'));
    const events = await watchPod('sigterm', (e) => e.type === 'DELETED', {
      resourceVersion: pod.metadata.resourceVersion,
      afterStart: () =>
        core.deleteNamespacedPod({ name: 'sigterm', namespace, gracePeriodSeconds: 5 }),
    });
    const ended = events.find((e) => terminated(e.pod));
    expect(ended).toBeDefined();
    expect(ended!.pod.metadata.deletionTimestamp).toBeDefined();
    expect(ended!.pod.status?.phase).toBe('Failed');
    expect(terminated(ended!.pod)).toMatchObject({ exitCode: 143, reason: 'Error' });
    expect(events.indexOf(ended!)).toBeLessThan(events.length - 1);
  });

  it('ends a graceful pod with 0 on deletion', async () => {
    const pod = await createAndWaitRunning(
      podBody('graceful', { annotations: { 'sim.kpm.daq/graceful': 'true' } }),
    );
    const events = await watchPod('graceful', (e) => e.type === 'DELETED', {
      resourceVersion: pod.metadata.resourceVersion,
      afterStart: () =>
        core.deleteNamespacedPod({ name: 'graceful', namespace, gracePeriodSeconds: 5 }),
    });
    const ended = events.find((e) => terminated(e.pod));
    expect(ended?.pod.status?.phase).toBe('Succeeded');
    expect(terminated(ended!.pod)).toMatchObject({ exitCode: 0, reason: 'Completed' });
  });

  it('never removes a foreign finalizer: the pod stays until its owner removes it', async () => {
    const pod = await createAndWaitRunning(podBody('held', { finalizers: [FINALIZER] }));
    // kwok's final delete is made with grace 0: seeing grace 0 on a terminated pod means it has
    // already tried to remove the pod, and the finalizer kept it.
    const events = await watchPod(
      'held',
      (e) =>
        e.type === 'DELETED' ||
        (Boolean(terminated(e.pod)) && e.pod.metadata.deletionGracePeriodSeconds === 0),
      {
        resourceVersion: pod.metadata.resourceVersion,
        afterStart: () =>
          core.deleteNamespacedPod({ name: 'held', namespace, gracePeriodSeconds: 2 }),
      },
    );
    const last = events[events.length - 1];
    expect(last.type).toBe('MODIFIED');
    expect(last.pod.metadata.deletionTimestamp).toBeDefined();
    expect(last.pod.metadata.finalizers).toEqual([FINALIZER]);
    expect(terminated(last.pod)).toMatchObject({ exitCode: 143 });

    const current = await core.readNamespacedPod({ name: 'held', namespace });
    expect(current.metadata?.finalizers).toEqual([FINALIZER]);

    const gone = await watchPod('held', (e) => e.type === 'DELETED', {
      resourceVersion: current.metadata!.resourceVersion,
      afterStart: () =>
        core.patchNamespacedPod(
          {
            name: 'held',
            namespace,
            body: [
              { op: 'test', path: '/metadata/finalizers/0', value: FINALIZER },
              { op: 'remove', path: '/metadata/finalizers/0' },
            ],
          },
          setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
        ),
    });
    expect(gone[gone.length - 1].type).toBe('DELETED');
  });

  it('kills (137) a pod that outlives its grace when deleted again with grace 0', async () => {
    const body = podBody('stubborn', {
      finalizers: [FINALIZER],
      annotations: { 'sim.kpm.daq/stop-ms': '600000' },
    });
    const pod = await createAndWaitRunning(body);
    const deleting = await watchPod('stubborn', (e) => Boolean(e.pod.metadata.deletionTimestamp), {
      resourceVersion: pod.metadata.resourceVersion,
      afterStart: () =>
        core.deleteNamespacedPod({ name: 'stubborn', namespace, gracePeriodSeconds: 30 }),
    });
    const killed = await watchPod('stubborn', (e) => Boolean(terminated(e.pod)), {
      resourceVersion: deleting[deleting.length - 1].pod.metadata.resourceVersion,
      afterStart: () =>
        core.deleteNamespacedPod({ name: 'stubborn', namespace, gracePeriodSeconds: 0 }),
    });
    expect(terminated(killed[killed.length - 1].pod)).toMatchObject({ exitCode: 137 });
    await core.patchNamespacedPod(
      { name: 'stubborn', namespace, body: { metadata: { finalizers: null } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  });

  it('reports a bad image as ErrImagePull and keeps the pod Pending', async () => {
    const body = podBody('bad-image', { image: 'kpm.invalid/bad-image:latest' });
    const events = await watchPod(
      'bad-image',
      (e) => e.pod.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ErrImagePull',
      {
        afterStart: () => core.createNamespacedPod({ namespace, body }),
      },
    );
    expect(events[events.length - 1].pod.status?.phase).toBe('Pending');
    await core.deleteNamespacedPod({ name: 'bad-image', namespace, gracePeriodSeconds: 0 });
  });

  it('replays later events to a watch started from an earlier list resourceVersion', async () => {
    const list = await core.listNamespacedPod({ namespace });
    const from = list.metadata!.resourceVersion!;
    // Changes happen first, with no watch open from `from`…
    await createAndWaitRunning(podBody('replayed'));
    await core.deleteNamespacedPod({ name: 'replayed', namespace, gracePeriodSeconds: 0 });
    // …then a watch from the old resourceVersion receives all of them, in order.
    const events = await watchPod('replayed', (e) => e.type === 'DELETED', {
      resourceVersion: from,
    });
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('ADDED');
    expect(types[types.length - 1]).toBe('DELETED');
    expect(events.some((e) => e.pod.status?.phase === 'Running')).toBe(true);
    const versions = events.map((e) => BigInt(e.pod.metadata.resourceVersion));
    expect([...versions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(versions);
  });
});
