/**
 * The Cluster port's contract: one table of behaviours any Cluster answers as the API server does.
 * `cluster-contract.spec.ts` runs it on FakeCluster (unit run), and
 * `test/integration/cluster-contract.test.ts` on KubeCluster against the local stack's API server
 * and kwok's nodes (integration run). When the two disagree, the table (the API server) is right
 * and the fake is fixed.
 *
 * A case arranges what the port cannot (another's namespace, pod or Service, a finalizer dropped
 * by someone else) through its `ContractEnv`, and says how a pod behaves in kwok's words and the
 * fake's alike (`PodBehaviour`). Names are made unique per run (`env.unique`), so a run shares
 * the API server with other suites; a case asserts only on what it made. The expectations use
 * jest's `expect`, called only while a case runs.
 */
import type { V1ConfigMap, V1Pod, V1Service } from '@kubernetes/client-node';
import { eventually } from '@kpm/common';
import type { Role } from '@kpm/contracts';
import { failureOf, KUEUE_POD_FINALIZER } from '@kpm/kube';
import { randomUUID } from 'node:crypto';
import type { Cluster } from '../cluster/cluster';
import type { ProcessPod } from '../cluster/process-pod';

/** How a pod's container behaves on its node (kwok's annotations, the fake's script). */
export type PodBehaviour =
  /** Running (and Ready) at once until deleted; exits `stopsAfterMs` after its SIGTERM. */
  | { runs: 'until-deleted'; stopsAfterMs?: number }
  /** Running, then exits by itself with `exitCode` after `afterMs`. */
  | { runs: 'then-exits'; exitCode: number; afterMs: number };

/** What a case needs beyond the port: arranging as another would, and the cluster's facts. */
export interface ContractEnv {
  /** A name of this run's own (DNS-1123), so runs sharing one API server never meet. */
  unique(label: string): string;
  /** The pod, placed and annotated (or scripted) to behave as told. */
  behave(pod: V1Pod, behaviour: PodBehaviour): V1Pod;
  /** A namespace without kpm's creator label, made behind the port. */
  addForeignNamespace(name: string): Promise<void>;
  /** A pod without kpm's creator label, made behind the port in an existing namespace. */
  addForeignPod(pod: V1Pod): Promise<void>;
  /** A Service without kpm's creator label, made behind the port in an existing namespace. */
  addForeignService(service: V1Service): Promise<void>;
  /** Someone else (an operator, kpm's watcher) removes the pod's finalizers. */
  dropFinalizers(namespace: string, name: string): Promise<void>;
  /** A node that is Ready and schedulable. */
  readyNode: string;
  /** A node port in the cluster's range that no Service holds. */
  freeNodePort(): Promise<number>;
}

export interface ContractCase {
  name: string;
  /**
   * The case is about a container's life (its end, its exit code, how a delete ends it): run on
   * the real node too, where a kubelet, not a simulation, decides those.
   */
  realNode?: true;
  run(cluster: Cluster, env: ContractEnv): Promise<void>;
}

/** Long enough for the real API server and kwok; the fake's virtual clock passes it at once. */
const WAIT_MS = 60_000;

/** A kpm pod as the boot-worker makes one (creator, uuid, session, role labels). */
export function kpmPod(
  cluster: Cluster,
  namespace: string,
  name: string,
  options: {
    uuid?: string;
    finalizer?: boolean;
    processName?: string;
    /** The role label; null: none (a pod older than the label), its role derived. */
    role?: Role | null;
    treeId?: string;
  } = {},
): V1Pod {
  const { labels } = cluster;
  const role = options.role === undefined ? 'application' : options.role;
  return {
    metadata: {
      name,
      namespace,
      labels: {
        [labels.creator]: 'kpm',
        [labels.uuid]: options.uuid ?? randomUUID(),
        [labels.session]: namespace,
        ...(role === null ? {} : { [labels.role]: role }),
        ...(options.treeId === undefined ? {} : { [labels.treeId]: options.treeId }),
        [labels.app]: name,
      },
      annotations: options.processName ? { [labels.nameAnnotation]: options.processName } : {},
      finalizers: options.finalizer ? [labels.terminationFinalizer] : [],
    },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 30,
      containers: [
        { name: 'main', image: 'kpm.invalid/daq-app:1.0', command: ['daq_application'] },
      ],
    },
  };
}

/** The same pod without kpm's creator label. */
function foreign<T extends V1Pod | V1Service | V1ConfigMap>(cluster: Cluster, object: T): T {
  const labels = { ...object.metadata!.labels };
  delete labels[cluster.labels.creator];
  return { ...object, metadata: { ...object.metadata, labels } };
}

function kpmService(
  cluster: Cluster,
  namespace: string,
  name: string,
  spec: V1Service['spec'],
  owner?: V1Pod,
): V1Service {
  return {
    metadata: {
      name,
      namespace,
      labels: { [cluster.labels.creator]: 'kpm' },
      ownerReferences: owner
        ? [
            {
              apiVersion: 'v1',
              kind: 'Pod',
              name: owner.metadata!.name!,
              uid: owner.metadata!.uid!,
            },
          ]
        : undefined,
    },
    spec: { ports: [{ name: 'main', port: 5000, protocol: 'TCP' }], ...spec },
  };
}

/** A kpm namespace of the run's own. */
async function session(cluster: Cluster, env: ContractEnv, label: string): Promise<string> {
  const name = env.unique(label);
  await cluster.namespaces.create(name, {});
  return name;
}

/** The pod, created through the port behaving as told. */
function create(cluster: Cluster, env: ContractEnv, pod: V1Pod, behaviour: PodBehaviour) {
  return cluster.pods.create(env.behave(pod, behaviour));
}

const UNTIL_DELETED: PodBehaviour = { runs: 'until-deleted' };

const isRunning = (pod: V1Pod | undefined) => pod?.status?.phase === 'Running';
const isGone = (pod: V1Pod | undefined) => pod === undefined;
const hasEnded = (pod: V1Pod | undefined) =>
  pod?.status?.phase === 'Succeeded' || pod?.status?.phase === 'Failed';

/** The failure the promise rejects with, classified as callers read it. */
async function failureFrom(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeDefined();
  return failureOf(error);
}

const namespaceCases: ContractCase[] = [
  {
    name: 'namespaces: create makes a kpm namespace with its labels; a second create returns it unchanged',
    run: async (cluster, env) => {
      const name = env.unique('ns-create');
      const made = await cluster.namespaces.create(name, { 'first.test': 'yes' });
      expect(made.metadata?.labels).toMatchObject({
        [cluster.labels.creator]: 'kpm',
        'first.test': 'yes',
      });
      expect(made.metadata?.uid).toBeTruthy();
      const again = await cluster.namespaces.create(name, { 'second.test': 'yes' });
      expect(again.metadata?.uid).toBe(made.metadata?.uid);
      expect(again.metadata?.labels).not.toHaveProperty('second.test');
      expect((await cluster.namespaces.read(name))?.metadata?.uid).toBe(made.metadata?.uid);
      expect(await cluster.namespaces.listOurs()).toContain(name);
    },
  },
  {
    name: "namespaces: setLabels merges into kpm's namespace; another's is read, never labelled, listed or deleted",
    run: async (cluster, env) => {
      const ours = env.unique('ns-ours');
      const made = await cluster.namespaces.create(ours, { 'first.test': 'yes' });
      const labelled = await cluster.namespaces.setLabels(made, { 'phase.test': 'booted' });
      expect(labelled.metadata?.labels).toMatchObject({
        'first.test': 'yes',
        'phase.test': 'booted',
      });
      expect((await cluster.namespaces.read(ours))?.metadata?.labels).toMatchObject({
        'phase.test': 'booted',
      });

      const theirs = env.unique('ns-theirs');
      await env.addForeignNamespace(theirs);
      const found = await cluster.namespaces.read(theirs);
      expect(found?.metadata?.name).toBe(theirs);
      await cluster.namespaces.setLabels(found!, { 'phase.test': 'booted' });
      expect((await cluster.namespaces.read(theirs))?.metadata?.labels).not.toHaveProperty(
        'phase.test',
      );
      expect(await cluster.namespaces.listOurs()).not.toContain(theirs);
      expect(await cluster.namespaces.delete(found!)).toBe(false);
      expect((await cluster.namespaces.read(theirs))?.metadata?.deletionTimestamp).toBeUndefined();
      expect(await cluster.namespaces.read(env.unique('ns-none'))).toBeUndefined();
    },
  },
  {
    name: "namespaces: delete of kpm's namespace is true and it goes; a second delete is false",
    run: async (cluster, env) => {
      const name = await session(cluster, env, 'ns-delete');
      const namespace = (await cluster.namespaces.read(name))!;
      expect(await cluster.namespaces.delete(namespace)).toBe(true);
      expect(await cluster.namespaces.waitGone(name, WAIT_MS)).toBe(true);
      expect(await cluster.namespaces.read(name)).toBeUndefined();
      expect(await cluster.namespaces.listOurs()).not.toContain(name);
      expect(await cluster.namespaces.delete(namespace)).toBe(false);
    },
  },
  {
    name: 'namespaces: one being deleted (Terminating) is returned as it is, takes no new pod, Service or record (403), and goes once its pods are',
    run: async (cluster, env) => {
      const name = await session(cluster, env, 'ns-terminating');
      const held = await create(
        cluster,
        env,
        kpmPod(cluster, name, 'held', { finalizer: true }),
        UNTIL_DELETED,
      );
      expect(await cluster.namespaces.delete((await cluster.namespaces.read(name))!)).toBe(true);
      const terminating = await cluster.namespaces.read(name);
      expect(terminating?.status?.phase).toBe('Terminating');
      expect(terminating?.metadata?.deletionTimestamp).toBeTruthy();
      const again = await cluster.namespaces.create(name, {});
      expect(again.metadata?.uid).toBe(terminating?.metadata?.uid);
      expect(again.status?.phase).toBe('Terminating');

      const refusals = [
        cluster.pods.create(env.behave(kpmPod(cluster, name, 'late'), UNTIL_DELETED)),
        cluster.services.ensure(kpmService(cluster, name, 'late', { clusterIP: 'None' })),
        cluster.restartRecords.create(record(cluster, name, 'late', 'terminating')),
      ];
      for (const refusal of refusals) {
        const failure = await failureFrom(refusal);
        expect(failure).toMatchObject({ kind: 'forbidden', status: 403, reason: 'Forbidden' });
        expect(failure.message).toMatch(/because it is being terminated/);
      }
      // The pod's finalizer holds it, and it holds the namespace.
      expect(await cluster.namespaces.waitGone(name, 1_000)).toBe(false);
      await env.dropFinalizers(name, held.metadata!.name!);
      expect(await cluster.namespaces.waitGone(name, WAIT_MS)).toBe(true);
    },
  },
];

/** A scheduling gate of the contract's own. */
const GATE = 'contract.kpm.test/held';

/** The pod, as `behave` placed it, left to a scheduler on that node instead, behind `GATE`. */
function gated(pod: V1Pod, env: ContractEnv): V1Pod {
  const node = pod.spec!.nodeName ?? env.readyNode;
  const spec = { ...pod.spec!, nodeSelector: { 'kubernetes.io/hostname': node } };
  delete spec.nodeName;
  return { ...pod, spec: { ...spec, schedulingGates: [{ name: GATE }] } };
}

const podCases: ContractCase[] = [
  {
    name: 'pods: a gated pod is not placed nor run; ungate lifts the gate and it runs; a gate gone is false',
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'gated');
      const made = await cluster.pods.create(
        gated(env.behave(kpmPod(cluster, ns, 'held'), UNTIL_DELETED), env),
      );
      expect(made.spec?.schedulingGates).toEqual([{ name: GATE }]);
      const held = await cluster.pods.read(ns, 'held');
      expect(held?.spec?.nodeName).toBeFalsy();
      expect(held?.status?.phase).toBe('Pending');
      expect(await cluster.pods.ungate(made, GATE)).toBe(true);
      const wait = await cluster.pods.waitFor([made], isRunning, WAIT_MS);
      expect(wait.pending).toEqual([]);
      expect(wait.last.get(made.metadata!.uid!)?.spec?.schedulingGates ?? []).toEqual([]);
      // The pod in hand still shows the gate: the API server's pod says it is gone.
      expect(await cluster.pods.ungate(made, GATE)).toBe(false);
      expect(await cluster.pods.ungate(made, 'contract.kpm.test/never')).toBe(false);
    },
  },
  {
    name: 'pods: a pod that names its node may carry no scheduling gate (invalid, 422)',
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'gated-bound');
      const pod = env.behave(kpmPod(cluster, ns, 'bound'), UNTIL_DELETED);
      const nodeName = pod.spec!.nodeName ?? env.readyNode;
      pod.spec = { ...pod.spec!, nodeName, schedulingGates: [{ name: GATE }] };
      const failure = await failureFrom(cluster.pods.create(pod));
      expect(failure).toMatchObject({ kind: 'invalid', status: 422 });
      expect(failure.message).toMatch(/schedulingGates/);
      expect(await cluster.pods.read(ns, 'bound')).toBeUndefined();
    },
  },
  {
    name: "pods: delete lets Kueue's finalizer go first, so the pod goes once it ended and kpm's is dropped",
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'kueue-held');
      const pod = env.behave(kpmPod(cluster, ns, 'member', { finalizer: true }), UNTIL_DELETED);
      pod.metadata!.finalizers = [...pod.metadata!.finalizers!, KUEUE_POD_FINALIZER];
      const made = await cluster.pods.create(pod);
      expect((await cluster.pods.waitFor([made], isRunning, WAIT_MS)).pending).toEqual([]);
      expect(await cluster.pods.delete(made, 0)).toBe(true);
      const ended = await cluster.pods.waitFor([made], hasEnded, WAIT_MS);
      expect(ended.last.get(made.metadata!.uid!)?.metadata?.finalizers).toEqual([
        cluster.labels.terminationFinalizer,
      ]);
      await env.dropFinalizers(ns, 'member');
      expect((await cluster.pods.waitFor([made], isGone, WAIT_MS)).pending).toEqual([]);
    },
  },
  {
    name: 'pods: create returns the pod with its uid; a taken name fails as a conflict (409 AlreadyExists)',
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'pod-conflict');
      const made = await create(cluster, env, kpmPod(cluster, ns, 'taken'), UNTIL_DELETED);
      expect(made.metadata?.uid).toBeTruthy();
      const failure = await failureFrom(
        create(cluster, env, kpmPod(cluster, ns, 'taken'), UNTIL_DELETED),
      );
      expect(failure).toMatchObject({ kind: 'conflict', status: 409, reason: 'AlreadyExists' });
      expect((await cluster.pods.read(ns, 'taken'))?.metadata?.uid).toBe(made.metadata?.uid);
    },
  },
  {
    name: 'pods, Services and records: kpm creates none without its creator label',
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'unlabelled');
      const pod = env.behave(foreign(cluster, kpmPod(cluster, ns, 'plain')), UNTIL_DELETED);
      await expect(cluster.pods.create(pod)).rejects.toThrow(/creator label/);
      const service = foreign(cluster, kpmService(cluster, ns, 'plain', { clusterIP: 'None' }));
      await expect(cluster.services.ensure(service)).rejects.toThrow(/creator label/);
      const configMap = foreign(cluster, record(cluster, ns, 'plain', 'unlabelled'));
      await expect(cluster.restartRecords.create(configMap)).rejects.toThrow(/creator label/);
      expect(await cluster.pods.read(ns, 'plain')).toBeUndefined();
    },
  },
  {
    name: "pods: read gives kpm's pod; another's pod, or none, is undefined, and another's is never listed or deleted",
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'pod-read');
      const ours = await create(cluster, env, kpmPod(cluster, ns, 'ours'), UNTIL_DELETED);
      const theirs = env.behave(foreign(cluster, kpmPod(cluster, ns, 'theirs')), UNTIL_DELETED);
      await env.addForeignPod(theirs);
      expect((await cluster.pods.read(ns, 'ours'))?.metadata?.uid).toBe(ours.metadata?.uid);
      expect(await cluster.pods.read(ns, 'theirs')).toBeUndefined();
      expect(await cluster.pods.read(ns, 'none')).toBeUndefined();
      expect((await cluster.pods.processes(ns)).map((p) => p.podName)).toEqual(['ours']);
      expect(await cluster.pods.delete(theirs, 0)).toBe(false);
    },
  },
  {
    name: "pods: processes(session) lists a session's processes, processes() every session's, withUuids those carrying the uuids",
    run: async (cluster, env) => {
      const [s1, s2] = [
        await session(cluster, env, 'proc-a'),
        await session(cluster, env, 'proc-b'),
      ];
      const uuids = { a: randomUUID(), b: randomUUID(), c: randomUUID() };
      const named = { processName: 'A_app' };
      await create(
        cluster,
        env,
        kpmPod(cluster, s1, 'a', { uuid: uuids.a, ...named }),
        UNTIL_DELETED,
      );
      await create(cluster, env, kpmPod(cluster, s1, 'b', { uuid: uuids.b }), UNTIL_DELETED);
      await create(cluster, env, kpmPod(cluster, s2, 'c', { uuid: uuids.c }), UNTIL_DELETED);
      const inS1 = await cluster.pods.processes(s1);
      const brief = (p: { name: string; podName: string; session: string; uuid: string }) =>
        `${p.session}/${p.podName} ${p.name} ${p.uuid}`;
      expect(inS1.map(brief).sort()).toEqual([`${s1}/a A_app ${uuids.a}`, `${s1}/b b ${uuids.b}`]);
      expect(inS1.every((p) => p.role === 'application')).toBe(true);
      const everywhere = (await cluster.pods.processes()).filter((p) =>
        [s1, s2].includes(p.session),
      );
      expect(everywhere.map((p) => p.podName).sort()).toEqual(['a', 'b', 'c']);
      const withUuids = await cluster.pods.withUuids([uuids.a, uuids.c, randomUUID()]);
      expect(withUuids.map((p) => `${p.session}/${p.podName}`).sort()).toEqual([
        `${s1}/a`,
        `${s2}/c`,
      ]);
      expect(await cluster.pods.withUuids([])).toEqual([]);
    },
  },
  {
    name: 'pods: named(session, podNames) reads only those pods of the session; inRole(session, role) those in the role, a pod without the label by its derived role',
    run: async (cluster, env) => {
      const [s1, s2] = [
        await session(cluster, env, 'named-a'),
        await session(cluster, env, 'named-b'),
      ];
      const infra = 'infrastructure-applications';
      await create(cluster, env, kpmPod(cluster, s1, 'ru-1'), UNTIL_DELETED);
      await create(cluster, env, kpmPod(cluster, s1, 'ru-2'), UNTIL_DELETED);
      await create(cluster, env, kpmPod(cluster, s1, 'cs', { role: infra }), UNTIL_DELETED);
      const old = kpmPod(cluster, s1, 'old', { role: null, treeId: '1' });
      await create(cluster, env, old, UNTIL_DELETED);
      await create(cluster, env, kpmPod(cluster, s2, 'ru-1'), UNTIL_DELETED);
      const names = (found: ProcessPod[]) => found.map((p) => `${p.session}/${p.podName}`).sort();
      expect(names(await cluster.pods.named(s1, ['ru-1', 'cs', 'absent']))).toEqual([
        `${s1}/cs`,
        `${s1}/ru-1`,
      ]);
      expect(await cluster.pods.named(s1, [])).toEqual([]);
      // `old` has no role label: tree id 1 is outside the controllers' tree, infrastructure.
      expect(names(await cluster.pods.inRole(s1, infra))).toEqual([`${s1}/cs`, `${s1}/old`]);
      expect(names(await cluster.pods.inRole(s1, 'application'))).toEqual([
        `${s1}/ru-1`,
        `${s1}/ru-2`,
      ]);
    },
  },
  {
    // A boot reads the session's processes while it reads the namespace, not after it.
    name: 'pods: processes(session) of a session without a namespace is empty, not an error',
    run: async (cluster, env) => {
      const none = env.unique('no-namespace');
      expect(await cluster.namespaces.read(none)).toBeUndefined();
      expect(await cluster.pods.processes(none)).toEqual([]);
    },
  },
  {
    name: 'pods: a delete with grace marks the pod (deletionTimestamp, its grace); it ends and goes; deleting it again is false',
    realNode: true,
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'pod-delete');
      const pod = await create(cluster, env, kpmPod(cluster, ns, 'slow-stop'), {
        runs: 'until-deleted',
        stopsAfterMs: 3_000,
      });
      expect((await cluster.pods.waitFor([pod], isRunning, WAIT_MS)).pending).toEqual([]);
      expect(await cluster.pods.delete(pod, 30)).toBe(true);
      const marked = await cluster.pods.read(ns, 'slow-stop');
      expect(marked?.metadata?.deletionTimestamp).toBeTruthy();
      expect(marked?.metadata?.deletionGracePeriodSeconds).toBe(30);
      const wait = await cluster.pods.waitFor([pod], isGone, WAIT_MS);
      expect(wait.pending).toEqual([]);
      expect(wait.last.get(pod.metadata!.uid!)).toBeUndefined();
      expect(await cluster.pods.read(ns, 'slow-stop')).toBeUndefined();
      expect(await cluster.pods.delete(pod, 30)).toBe(false);
    },
  },
  {
    name: 'pods: a delete is by uid: the pod that took the name since is left alone (false)',
    realNode: true,
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'pod-uid');
      const old = await create(cluster, env, kpmPod(cluster, ns, 'reused'), UNTIL_DELETED);
      expect(await cluster.pods.delete(old, 0)).toBe(true);
      expect((await cluster.pods.waitFor([old], isGone, WAIT_MS)).pending).toEqual([]);
      const fresh = await create(cluster, env, kpmPod(cluster, ns, 'reused'), UNTIL_DELETED);
      expect(fresh.metadata?.uid).not.toBe(old.metadata?.uid);
      expect(await cluster.pods.delete(old, 0)).toBe(false);
      const current = await cluster.pods.read(ns, 'reused');
      expect(current?.metadata?.uid).toBe(fresh.metadata?.uid);
      expect(current?.metadata?.deletionTimestamp).toBeUndefined();
    },
  },
  {
    name: "pods: waitFor resolves once every pod is done — a pod's end: its phase and exit code",
    realNode: true,
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'pod-end');
      const failing = await create(cluster, env, kpmPod(cluster, ns, 'fails'), {
        runs: 'then-exits',
        exitCode: 3,
        afterMs: 500,
      });
      const passing = await create(cluster, env, kpmPod(cluster, ns, 'passes'), {
        runs: 'then-exits',
        exitCode: 0,
        afterMs: 500,
      });
      const wait = await cluster.pods.waitFor([failing, passing], hasEnded, WAIT_MS);
      expect(wait.pending).toEqual([]);
      const end = (pod: V1Pod) => {
        const last = wait.last.get(pod.metadata!.uid!);
        const exit = last?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode;
        return `${last?.status?.phase} ${exit}`;
      };
      expect([end(failing), end(passing)]).toEqual(['Failed 3', 'Succeeded 0']);
    },
  },
  {
    name: 'pods: waitFor reports the pods not done at its timeout, with their last state',
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'pod-timeout');
      const pod = await create(cluster, env, kpmPod(cluster, ns, 'stays'), UNTIL_DELETED);
      const wait = await cluster.pods.waitFor([pod], isGone, 1_000);
      expect(wait.pending).toEqual([pod.metadata!.uid]);
      expect(wait.last.get(pod.metadata!.uid!)?.metadata?.name).toBe('stays');
    },
  },
];

const serviceCases: ContractCase[] = [
  {
    name: "services: ensure creates kpm's Service (its ClusterIP); ensured again for a new owner it is adopted, its ClusterIP kept",
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'svc-adopt');
      const first = await create(cluster, env, kpmPod(cluster, ns, 'first'), UNTIL_DELETED);
      const second = await create(cluster, env, kpmPod(cluster, ns, 'second'), UNTIL_DELETED);
      const made = await cluster.services.ensure(kpmService(cluster, ns, 'app', {}, first));
      expect(made.spec?.clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      const adopted = await cluster.services.ensure(kpmService(cluster, ns, 'app', {}, second));
      expect(adopted.metadata?.ownerReferences?.map((o) => o.uid)).toEqual([second.metadata?.uid]);
      expect(adopted.spec?.clusterIP).toBe(made.spec?.clusterIP);
      const read = await cluster.services.read(ns, 'app');
      expect(read?.metadata?.ownerReferences?.map((o) => o.name)).toEqual(['second']);
      const headless = await cluster.services.ensure(
        kpmService(cluster, ns, 'headless', { clusterIP: 'None' }, first),
      );
      expect(headless.spec?.clusterIP).toBe('None');
    },
  },
  {
    name: "services: ensure refuses a Service of that name that is not kpm's; read gives only kpm's",
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'svc-theirs');
      await env.addForeignService(
        foreign(cluster, kpmService(cluster, ns, 'theirs', { clusterIP: 'None' })),
      );
      await expect(
        cluster.services.ensure(kpmService(cluster, ns, 'theirs', { clusterIP: 'None' })),
      ).rejects.toThrow(/not created by kpm/);
      expect(await cluster.services.read(ns, 'theirs')).toBeUndefined();
      expect(await cluster.services.read(ns, 'none')).toBeUndefined();
    },
  },
  {
    name: 'services: nodePortHolder names the Service holding a node port; a free port has none',
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'svc-nodeport');
      const port = await env.freeNodePort();
      expect(await cluster.services.nodePortHolder(port)).toBeUndefined();
      const made = await cluster.services.ensure(
        kpmService(cluster, ns, 'drunc', {
          type: 'NodePort',
          ports: [{ name: 'main', port: 5000, nodePort: port, protocol: 'TCP' }],
        }),
      );
      expect(made.spec?.ports?.[0]?.nodePort).toBe(port);
      expect(await cluster.services.nodePortHolder(port)).toBe(`${ns}/drunc`);
    },
  },
  {
    name: 'services: a Service owned by a pod goes with the pod',
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'svc-owned');
      const owner = await create(cluster, env, kpmPod(cluster, ns, 'owner'), UNTIL_DELETED);
      await cluster.services.ensure(kpmService(cluster, ns, 'owned', { clusterIP: 'None' }, owner));
      expect(await cluster.pods.delete(owner, 0)).toBe(true);
      expect((await cluster.pods.waitFor([owner], isGone, WAIT_MS)).pending).toEqual([]);
      // The garbage collector removes it in its own time: asked until it has.
      await eventually(
        async () => expect(await cluster.services.read(ns, 'owned')).toBeUndefined(),
        { what: 'the owned Service gone', timeoutMs: WAIT_MS, everyMs: 200 },
      );
    },
  },
];

function record(cluster: Cluster, namespace: string, name: string, restart: string): V1ConfigMap {
  return {
    metadata: {
      name,
      namespace,
      labels: {
        [cluster.labels.creator]: 'kpm',
        [`restart-command.${cluster.labels.domain}`]: restart,
      },
    },
    data: { restart },
  };
}

const otherCases: ContractCase[] = [
  {
    name: 'restartRecords: created, listed by labels across namespaces, created again as it is, deleted (twice)',
    run: async (cluster, env) => {
      const [s1, s2] = [await session(cluster, env, 'rec-a'), await session(cluster, env, 'rec-b')];
      const restart = env.unique('r');
      const key = `restart-command.${cluster.labels.domain}`;
      const listed = async () =>
        (await cluster.restartRecords.list({ [key]: restart }))
          .map((r) => `${r.metadata?.namespace}/${r.metadata?.name}`)
          .sort();
      await cluster.restartRecords.create(record(cluster, s1, 'one', restart));
      await cluster.restartRecords.create(record(cluster, s2, 'two', restart));
      await cluster.restartRecords.create(record(cluster, s2, 'other', env.unique('r')));
      expect(await listed()).toEqual([`${s1}/one`, `${s2}/two`]);
      await cluster.restartRecords.create(record(cluster, s1, 'one', restart));
      expect(await listed()).toEqual([`${s1}/one`, `${s2}/two`]);
      await cluster.restartRecords.delete(record(cluster, s1, 'one', restart));
      expect(await listed()).toEqual([`${s2}/two`]);
      await cluster.restartRecords.delete(record(cluster, s1, 'one', restart));
      expect(await listed()).toEqual([`${s2}/two`]);
    },
  },
  {
    name: 'nodes: a Ready node is usable; a name not in the cluster is not part of it',
    run: async (cluster, env) => {
      expect(await cluster.nodes.check(env.readyNode)).toMatchObject({
        name: env.readyNode,
        usable: true,
      });
      const missing = env.unique('no-such-node');
      expect(await cluster.nodes.check(missing)).toEqual({
        name: missing,
        usable: false,
        reason: 'not part of the cluster',
      });
      expect(await cluster.nodes.summary()).toContain(`${env.readyNode} (usable)`);
    },
  },
  {
    name: 'nodes: what the pods bound to a node request, summed by resource',
    run: async (cluster, env) => {
      const ns = await session(cluster, env, 'requests');
      // A resource no other pod asks for: other suites' pods on the node do not change its sum.
      const resource = 'contract.kpm.test/units';
      const before = (await cluster.nodes.requested(env.readyNode))[resource] ?? 0;
      const pod = env.behave(kpmPod(cluster, ns, 'asks'), UNTIL_DELETED);
      pod.spec!.nodeName = env.readyNode;
      pod.spec!.containers[0].resources = {
        requests: { [resource]: '3' },
        limits: { [resource]: '3' },
      };
      await cluster.pods.create(pod);
      expect((await cluster.nodes.requested(env.readyNode))[resource]).toBe(before + 3000); // thousandths
    },
  },
];

/** Every behaviour, in one table. */
export const CLUSTER_CONTRACT: readonly ContractCase[] = [
  ...namespaceCases,
  ...podCases,
  ...serviceCases,
  ...otherCases,
];
