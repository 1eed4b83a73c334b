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
import { KubeStack, KWOK_DELETE_POLICY, kwokKubeconfigPath } from '@kpm/stack';

/**
 * The local control plane is a real one (etcd + kube-apiserver) and kwok keeps the simulation
 * contract of docs/design.md §7.2 (stack/kube/kwok.yaml). Every wait is on a watch event with a
 * deadline.
 */

/** Pods as the watch delivers them: plain JSON, timestamps as strings. */
interface PodJson {
  metadata: {
    name: string;
    uid: string;
    resourceVersion: string;
    deletionTimestamp?: string;
    deletionGracePeriodSeconds?: number;
    finalizers?: string[];
  };
  spec?: { nodeName?: string };
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

// testTimeout in jest.config.js is a global option, ignored inside `projects`.
jest.setTimeout(90000);

const FINALIZER = 'drunc.daq/termination-record';
const CREATOR = { 'creator.drunc.daq': 'kpm' };
// Generous: on a loaded 2-core machine the namespace controller took over 30 s to finish a deletion.
const DEADLINE_MS = 90000;

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
  if (core && namespace) await core.deleteNamespace({ name: namespace });
});

function podBody(
  name: string,
  options: {
    annotations?: Record<string, string>;
    finalizers?: string[];
    image?: string;
    /** Leave binding to kube-scheduler instead of naming kpm-node-1. */
    nodeSelector?: Record<string, string>;
  } = {},
): V1Pod {
  return {
    metadata: { name, annotations: options.annotations, finalizers: options.finalizers },
    spec: {
      // Bound directly unless a nodeSelector asks for the scheduler.
      nodeName: options.nodeSelector ? undefined : 'kpm-node-1',
      nodeSelector: options.nodeSelector,
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

interface WatchEvent<T> {
  type: string;
  object: T;
}

/**
 * Watches `path` from `resourceVersion` until `done` says so, running `afterStart` once the
 * stream is open. Resolves with every event seen; rejects at the deadline with what was seen.
 */
function watchUntil<T>(
  path: string,
  query: { fieldSelector: string; resourceVersion?: string },
  done: (event: WatchEvent<T>, seen: WatchEvent<T>[]) => boolean,
  afterStart?: () => Promise<unknown>,
): Promise<WatchEvent<T>[]> {
  const seen: WatchEvent<T>[] = [];
  return new Promise<WatchEvent<T>[]>((resolve, reject) => {
    let controller: AbortController | undefined;
    let finished = false;
    const finish = (error?: unknown) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      controller?.abort();
      if (error) reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
      else resolve(seen);
    };
    const timer = setTimeout(() => {
      const types = seen.map((e) => e.type).join(',');
      finish(
        new Error(`${path} ${query.fieldSelector}: no end after ${DEADLINE_MS} ms; saw ${types}`),
      );
    }, DEADLINE_MS);
    new Watch(kc)
      .watch(
        path,
        { ...query, allowWatchBookmarks: false },
        (type: string, object: T) => {
          seen.push({ type, object });
          if (done({ type, object }, seen)) finish();
        },
        (error: unknown) => {
          if (error && (error as { name?: string }).name !== 'AbortError') finish(error);
        },
      )
      .then(async (started) => {
        controller = started;
        if (finished) started.abort();
        else await afterStart?.();
      })
      .catch(finish);
  });
}

/** A pod's events from `resourceVersion`, or from a fresh list of it (its current state first). */
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
      seen.push({ type: 'EXISTING', pod: JSON.parse(JSON.stringify(item)) as PodJson });
      if (done(seen[seen.length - 1], seen)) return seen;
    }
  }
  const toPodEvent = (e: WatchEvent<PodJson>): PodEvent => ({ type: e.type, pod: e.object });
  const events = await watchUntil<PodJson>(
    `/api/v1/namespaces/${namespace}/pods`,
    { fieldSelector: `metadata.name=${name}`, resourceVersion },
    (event, all) => done(toPodEvent(event), [...seen, ...all.map(toPodEvent)]),
    options.afterStart,
  ).catch((error: Error) => {
    throw new Error(`pod ${name}: ${error.message}`);
  });
  return [...seen, ...events.map(toPodEvent)];
}

const terminated = (pod: PodJson) => pod.status?.containerStatuses?.[0]?.state?.terminated;
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

  it("refuses kwok a delete of a pod that is not being deleted (the kubelet's uid rule)", async () => {
    // kwok deletes by name; a replay of its pod-delete stage must not reach a newer pod.
    await createAndWaitRunning(podBody('reused'));
    const asKwok = new KubeConfig();
    asKwok.loadFromFile(kwokKubeconfigPath());
    const refused = await asKwok
      .makeApiClient(CoreV1Api)
      .deleteNamespacedPod({ name: 'reused', namespace, gracePeriodSeconds: 0 })
      .then(
        () => undefined,
        (error: unknown) => error as ApiException<unknown>,
      );
    expect(String(refused?.body)).toContain(KWOK_DELETE_POLICY);
    const still = await core.readNamespacedPod({ name: 'reused', namespace });
    expect(still.metadata?.deletionTimestamp).toBeUndefined();
    expect(still.status?.phase).toBe('Running');
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
  it('schedules a pod that has only a nodeSelector (kube-scheduler)', async () => {
    const body = podBody('selected', { nodeSelector: { 'kubernetes.io/hostname': 'kpm-node-2' } });
    const pod = await createAndWaitRunning(body);
    expect(pod.spec?.nodeName).toBe('kpm-node-2');
    await core.deleteNamespacedPod({ name: 'selected', namespace, gracePeriodSeconds: 0 });
  });

  it("garbage-collects a pod's owner-referenced Service once the pod is gone", async () => {
    const pod = await createAndWaitRunning(podBody('owner'));
    const service = await core.createNamespacedService({
      namespace,
      body: {
        metadata: {
          name: 'owner',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'Pod', name: 'owner', uid: pod.metadata.uid },
          ],
        },
        spec: { clusterIP: 'None', selector: { app: 'owner' }, ports: [{ port: 5000 }] },
      },
    });
    const events = await watchUntil(
      `/api/v1/namespaces/${namespace}/services`,
      { fieldSelector: 'metadata.name=owner', resourceVersion: service.metadata!.resourceVersion },
      (event) => event.type === 'DELETED',
      () => core.deleteNamespacedPod({ name: 'owner', namespace, gracePeriodSeconds: 0 }),
    );
    expect(events[events.length - 1].type).toBe('DELETED');
  });

  it('deletes a namespace together with its pods (namespace controller)', async () => {
    const doomed = `${namespace}-gone`;
    const created = await core.createNamespace({
      body: { metadata: { name: doomed, labels: CREATOR } },
    });
    await core.createNamespacedPod({ namespace: doomed, body: podBody('inside') });
    const events = await watchUntil(
      '/api/v1/namespaces',
      {
        fieldSelector: `metadata.name=${doomed}`,
        resourceVersion: created.metadata!.resourceVersion,
      },
      (event) => event.type === 'DELETED',
      () => core.deleteNamespace({ name: doomed }),
    );
    expect(events[events.length - 1].type).toBe('DELETED');
  });
});
