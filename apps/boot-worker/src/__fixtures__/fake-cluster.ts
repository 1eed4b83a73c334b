/**
 * An in-memory cluster behind the boot-worker's Cluster port, on a VirtualClock, for the handlers'
 * table tests: namespaces, pods run by a scripted kubelet, Services, nodes, restart records, and
 * waits that follow every change as a watch does. Kubernetes' rules that kpm relies on are kept:
 *
 * - a taken pod name is a 409; a namespace missing (404) or being deleted (403) takes no new pod,
 *   Service or record; kpm writes only objects with its creator label; another's Service is
 *   never taken over, and an existing one of kpm's is adopted only by its owners;
 * - a delete sets deletionTimestamp; the kubelet stops the container (SIGTERM, then SIGKILL at
 *   the grace period; grace 0 kills at once); an object goes only once its pod ended and its
 *   finalizers are gone;
 * - kpm's watcher is simulated: it releases the termination-record finalizer of an ended pod
 *   `watcherDelayMs` after the end (`watcherDelayMs: undefined` — no watcher runs);
 * - a namespace being deleted deletes its pods and goes once they are gone; a pod's owned
 *   Services go with it;
 * - a pod with scheduling gates does not run until the last is lifted; one that names its node
 *   may carry none (422);
 * - with `kueue`, Kueue's pod integration is played as Kueue v0.17 does it: a pod naming a queue
 *   gets Kueue's admission gate and finalizer at creation; a group's gate is lifted from all its
 *   pods once all `pod-group-total-count` exist, if the quota admits them, and its Workload's
 *   conditions say why not otherwise.
 *
 * `history` lists what happened, with the virtual time, for tables to assert.
 */
import type {
  V1ConfigMap,
  V1ContainerStatus,
  V1Namespace,
  V1Node,
  V1Pod,
  V1Service,
} from '@kubernetes/client-node';
import { VirtualClock } from '@kpm/common';
import {
  KpmLabels,
  KubeCallFailed,
  KUEUE_ADMISSION_GATE,
  KUEUE_GROUP_TOTAL_ANNOTATION,
  KUEUE_POD_FINALIZER,
  KUEUE_POD_GROUP_LABEL,
  KUEUE_QUEUE_NAME_LABEL,
  NodeDirectory,
  type KubeFailure,
  type KueueCondition,
} from '@kpm/kube';
import type {
  Cluster,
  KueueQueues,
  Nodes,
  PodWait,
  ProcessPods,
  ProcessServices,
  RestartRecords,
  SessionNamespaces,
} from '../cluster/cluster';
import { processPodOf, type ProcessPod } from '../cluster/process-pod';

/** How the kubelet runs one pod (by pod name); times in ms of the virtual clock. */
export interface PodScript {
  /** Running and Ready this long after creation; `Infinity`: never Ready (it runs, unready). */
  readyAfterMs?: number;
  /** Exits this long after its SIGTERM; `Infinity`: ignores SIGTERM (killed at the grace period). */
  stopsAfterMs?: number;
  /** Its node does not answer: nothing ends it but a delete with grace 0. */
  unresponsive?: boolean;
  /** Exits by itself this long after creation, with `exitCode`. */
  exitsAfterMs?: number;
  exitCode?: number;
  /** Stuck waiting for this reason (ErrImagePull, …) instead of running. */
  waitingReason?: string;
  logs?: string[];
}

export interface FakeClusterOptions {
  domain?: string;
  /**
   * Node name → state (default: one Ready node, `node-1`); `cordoned` is unschedulable, `tainted`
   * carries the NoSchedule taint `dedicated=daq` (for processes that name it).
   */
  nodes?: Record<string, NodeState>;
  /** What some nodes offer pods (their `status.allocatable`); others say nothing. */
  allocatable?: Record<string, Record<string, string>>;
  /** The script of pods that have none of their own. */
  defaultScript?: PodScript;
  /** How long after a pod ends kpm's watcher releases its finalizer; undefined: no watcher. */
  watcherDelayMs?: number;
  /** Kueue runs: `admits` false stands for a ClusterQueue whose quota is short. */
  kueue?: { admits: boolean };
  clock?: VirtualClock;
}

/** How long the fake Kueue takes to admit a complete group (its reconcile), virtual ms. */
const KUEUE_ADMIT_MS = 50;
/** Kueue's message for a group it cannot fit, as Kueue words it. */
export const FAKE_QUOTA_SHORT =
  "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor default";

export interface Happening {
  /** ms since the cluster was made. */
  at: number;
  what: string;
}

type NodeState = 'ready' | 'not-ready' | 'cordoned' | 'tainted';

/** Every fake node's address (pods in the node's network have it too). */
export const NODE_IP = '10.88.0.1';

const DEFAULT_SCRIPT: PodScript = { readyAfterMs: 1_000, stopsAfterMs: 1_000 };

export class FakeCluster implements Cluster {
  readonly clock: VirtualClock;
  readonly labels: KpmLabels;
  readonly history: Happening[] = [];
  readonly namespaces: SessionNamespaces;
  readonly pods: ProcessPods;
  readonly services: ProcessServices;
  readonly nodes: Nodes;
  readonly restartRecords: RestartRecords;
  readonly kueue: KueueQueues;
  /** LocalQueues made through the port: `namespace/name` → ClusterQueue. */
  readonly localQueues = new Map<string, string>();
  /** Scripts by pod name. */
  readonly scripts = new Map<string, PodScript>();
  watcherDelayMs: number | undefined;

  private started: number;
  private readonly nsStore = new Map<string, V1Namespace>();
  private readonly podStore = new Map<string, V1Pod>();
  private readonly serviceStore = new Map<string, V1Service>();
  private readonly recordStore = new Map<string, V1ConfigMap>();
  private readonly nodeList: V1Node[];
  private readonly listeners = new Set<() => void>();
  private readonly failures: Array<{ operation: string; failure: KubeFailure }> = [];
  private readonly timers = new Map<string, Array<() => void>>();
  private readonly workloads = new Map<string, KueueCondition[]>();
  private uids = 0;
  private ips = 0;

  constructor(private readonly options: FakeClusterOptions = {}) {
    this.clock = options.clock ?? new VirtualClock();
    this.started = this.clock.now();
    this.labels = new KpmLabels(options.domain ?? 'drunc.daq');
    this.watcherDelayMs = 'watcherDelayMs' in options ? options.watcherDelayMs : 100;
    const nodes: NonNullable<FakeClusterOptions['nodes']> = options.nodes ?? { 'node-1': 'ready' };
    this.nodeList = Object.entries(nodes).map(([name, state]) =>
      nodeOf(name, state, options.allocatable?.[name]),
    );
    this.namespaces = this.namespacePort();
    this.pods = this.podPort();
    this.services = this.servicePort();
    this.nodes = this.nodePort();
    this.restartRecords = this.recordPort();
    this.kueue = this.kueuePort();
  }

  // --- arranging a table's cluster -----------------------------------------------------------

  /** A namespace that is there before the test: kpm's (with its owner) unless `labels` say else. */
  addNamespace(name: string, labels: Record<string, string>): V1Namespace {
    const namespace: V1Namespace = {
      metadata: { name, uid: this.uid(), labels, creationTimestamp: this.now() },
      status: { phase: 'Active' },
    };
    this.nsStore.set(name, namespace);
    return clone(namespace);
  }

  /** A pod already there (created earlier, as by a boot); runs its script from now. */
  addPod(pod: V1Pod): V1Pod {
    return this.createPod(pod, false);
  }

  /** Someone else removes the pod's finalizers and deletes it: it is gone at once. */
  removePod(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    this.clearTimers(key);
    if (this.podStore.delete(key)) this.happened(`removed pod ${key}`);
    this.sweepNamespace(namespace);
    this.changed();
  }

  /** Someone else (an operator, kpm's watcher) removes the pod's finalizers. */
  dropFinalizers(namespace: string, name: string): void {
    const pod = this.podStore.get(`${namespace}/${name}`);
    if (!pod?.metadata?.finalizers?.length) return;
    pod.metadata.finalizers = [];
    this.happened(`dropped finalizers of pod ${namespace}/${name}`);
    this.release(pod);
    this.changed();
  }

  /** A Service already there (kpm's or, without its label, another's). */
  addService(service: V1Service): void {
    this.serviceStore.set(
      `${service.metadata!.namespace}/${service.metadata!.name}`,
      clone(service),
    );
  }

  /** The next `operation` (e.g. `pods.create`) fails with this API failure, after any retries. */
  failNext(operation: string, failure: Omit<KubeFailure, 'message'> & { message?: string }): void {
    this.failures.push({
      operation,
      failure: { message: `${failure.reason} says the API server`, ...failure },
    });
  }

  // --- reading what happened -----------------------------------------------------------------

  pod(namespace: string, name: string): V1Pod | undefined {
    const pod = this.podStore.get(`${namespace}/${name}`);
    return pod && clone(pod);
  }

  namespace(name: string): V1Namespace | undefined {
    const namespace = this.nsStore.get(name);
    return namespace && clone(namespace);
  }

  allPods(): V1Pod[] {
    return [...this.podStore.values()].map(clone);
  }

  service(namespace: string, name: string): V1Service | undefined {
    return this.serviceStore.get(`${namespace}/${name}`);
  }

  allRecords(): V1ConfigMap[] {
    return [...this.recordStore.values()].map(clone);
  }

  /** Starts `history` afresh, its times counted from now. */
  resetHistory(): void {
    this.history.length = 0;
    this.started = this.clock.now();
  }

  /** `history` as `+<seconds>s <what>` lines, optionally only those matching. */
  timeline(match?: RegExp): string[] {
    return this.history
      .filter((h) => !match || match.test(h.what))
      .map((h) => `+${h.at / 1000}s ${h.what}`);
  }

  // --- the port --------------------------------------------------------------------------------

  private namespacePort(): SessionNamespaces {
    return {
      read: (name) => this.call('namespaces.read', () => this.namespace(name)),
      create: (name, labels) =>
        this.call('namespaces.create', () => {
          const existing = this.nsStore.get(name);
          if (existing) return clone(existing);
          this.happened(`create namespace ${name}`);
          return this.addNamespace(name, { ...labels, [this.labels.creator]: 'kpm' });
        }),
      setLabels: (namespace, labels) =>
        this.call('namespaces.setLabels', () => {
          const stored = this.nsStore.get(namespace.metadata!.name!);
          if (!stored || !this.labels.isOurs(stored.metadata?.labels)) return namespace;
          stored.metadata!.labels = { ...stored.metadata!.labels, ...labels };
          this.happened(`label namespace ${stored.metadata!.name} ${JSON.stringify(labels)}`);
          return clone(stored);
        }),
      delete: (namespace) => this.call('namespaces.delete', () => this.deleteNamespace(namespace)),
      listOurs: () =>
        this.call('namespaces.listOurs', () =>
          [...this.nsStore.values()]
            .filter((ns) => this.labels.isOurs(ns.metadata?.labels))
            .map((ns) => ns.metadata!.name!)
            .sort(),
        ),
      waitGone: async (name, timeoutMs, signal) => {
        const wait = await this.waitUntil(() => !this.nsStore.has(name), timeoutMs, signal);
        return wait;
      },
    };
  }

  private podPort(): ProcessPods {
    return {
      processes: (session) =>
        this.call('pods.list', () =>
          this.processesWhere(
            (p) => !session || p.metadata?.labels?.[this.labels.session] === session,
          ),
        ),
      withUuids: (uuids) =>
        this.call('pods.list', () =>
          this.processesWhere((p) => uuids.includes(p.metadata?.labels?.[this.labels.uuid] ?? '')),
        ),
      named: (session, podNames) =>
        this.call('pods.list', () =>
          this.processesWhere(
            (p) =>
              p.metadata?.labels?.[this.labels.session] === session &&
              podNames.includes(p.metadata?.labels?.[this.labels.app] ?? ''),
          ),
        ),
      inRole: (session, role) =>
        this.call('pods.list', () =>
          this.processesWhere((p) => p.metadata?.labels?.[this.labels.session] === session).filter(
            (p) => p.role === role,
          ),
        ),
      create: (pod) => this.call('pods.create', () => this.createPod(pod, true)),
      read: (namespace, name) =>
        this.call('pods.read', () => {
          const pod = this.pod(namespace, name);
          return pod && this.labels.isOurs(pod.metadata?.labels) ? pod : undefined;
        }),
      delete: (pod, grace) =>
        this.call('pods.delete', () => {
          this.releaseFromKueue(pod);
          return this.deletePod(pod, grace);
        }),
      ungate: (pod, gate) => this.call('pods.ungate', () => this.ungate(keyOf(pod), gate)),
      logs: (pod, tailLines) =>
        this.call('pods.logs', () =>
          (this.scriptOf(pod.metadata!.name!).logs ?? []).slice(-tailLines),
        ),
      waitFor: (pods, done, timeoutMs, signal) => this.waitPods(pods, done, timeoutMs, signal),
    };
  }

  private kueuePort(): KueueQueues {
    return {
      ensureLocalQueue: (namespace, name, clusterQueue) =>
        this.call('kueue.localQueue', () => {
          this.admit('localqueues', namespace, name);
          const key = `${namespace}/${name}`;
          if (!this.localQueues.has(key)) {
            this.localQueues.set(key, clusterQueue);
            this.happened(`create localqueue ${key} for ${clusterQueue}`);
          }
        }),
      workloadConditions: (namespace, group) =>
        this.call('kueue.workload', () => clone(this.workloads.get(`${namespace}/${group}`))),
    };
  }

  private servicePort(): ProcessServices {
    return {
      ensure: (service) =>
        this.call('services.ensure', () => {
          this.labels.requireOurs('services', service);
          const { namespace, name } = service.metadata!;
          const key = `${namespace}/${name}`;
          const existing = this.serviceStore.get(key);
          // A NodePort Service is read first: one there is not created again.
          if (!existing || service.spec?.type !== 'NodePort')
            this.admit('services', namespace!, name!);
          if (existing) return this.adoptService(key, existing, service);
          this.happened(`create service ${key}`);
          const stored = clone(service);
          const headless = stored.spec?.clusterIP === 'None';
          stored.spec = { ...stored.spec, clusterIP: headless ? 'None' : `10.96.0.${++this.ips}` };
          this.serviceStore.set(key, stored);
          return clone(stored);
        }),
      read: (namespace, name) =>
        this.call('services.read', () => {
          const service = this.serviceStore.get(`${namespace}/${name}`);
          return service && this.labels.isOurs(service.metadata?.labels)
            ? clone(service)
            : undefined;
        }),
      nodePortHolder: (nodePort) =>
        this.call('services.nodePortHolder', () => {
          for (const [key, service] of this.serviceStore)
            if ((service.spec?.ports ?? []).some((p) => p.nodePort === nodePort)) return key;
          return undefined;
        }),
    };
  }

  /** The real node directory (drunc's verdicts, the spread by uuid) over the fake's node list. */
  private nodePort(): Nodes {
    const ended = new Set(['Succeeded', 'Failed']);
    const directory = new NodeDirectory(
      {
        listNode: () => Promise.resolve({ items: this.nodeList.map(clone) }),
        // Only the selector NodeDirectory sends: the pods bound to one node that have not ended.
        listPodForAllNamespaces: ({ fieldSelector = '' } = {}) => {
          const host = /spec\.nodeName=([^,]+)/.exec(fieldSelector)?.[1];
          const items = [...this.podStore.values()].filter(
            (p) => p.spec?.nodeName === host && !ended.has(p.status?.phase ?? ''),
          );
          return Promise.resolve({ items: items.map(clone) });
        },
      },
      { expiryMs: 0, now: () => this.clock.now() },
    );
    return {
      check: (host) => this.call('nodes.check', () => directory.check(host)),
      choose: (key) => this.call('nodes.choose', () => directory.choose(key)),
      summary: () => directory.summary(),
      requested: (host) => this.call('nodes.requested', () => directory.requested(host)),
    };
  }

  private recordPort(): RestartRecords {
    const key = (r: V1ConfigMap) => `${r.metadata!.namespace}/${r.metadata!.name}`;
    return {
      list: (selector) =>
        this.call('restartRecords.list', () =>
          [...this.recordStore.values()]
            .filter((r) => {
              const labels = r.metadata?.labels ?? {};
              return (
                this.labels.isOurs(labels) &&
                Object.entries(selector).every(([k, v]) => labels[k] === v)
              );
            })
            .map(clone),
        ),
      create: (record) =>
        this.call('restartRecords.create', () => {
          this.labels.requireOurs('config maps', record);
          this.admit('configmaps', record.metadata!.namespace!, record.metadata!.name!);
          if (this.recordStore.has(key(record))) return;
          this.happened(`create record ${key(record)}`);
          this.recordStore.set(key(record), clone(record));
        }),
      delete: (record) =>
        this.call('restartRecords.delete', () => {
          if (this.recordStore.delete(key(record))) this.happened(`delete record ${key(record)}`);
        }),
    };
  }

  // --- the API server ----------------------------------------------------------------------------

  /** Every port call: an injected failure, else the operation, in a later microtask as I/O is. */
  private async call<T>(operation: string, run: () => T | Promise<T>): Promise<T> {
    await Promise.resolve();
    const index = this.failures.findIndex((f) => f.operation === operation);
    if (index >= 0) {
      const [{ failure }] = this.failures.splice(index, 1);
      throw new KubeCallFailed(failure, 1);
    }
    return run();
  }

  private createPod(body: V1Pod, viaPort: boolean): V1Pod {
    const namespace = body.metadata!.namespace!;
    const name = body.metadata!.name!;
    const key = `${namespace}/${name}`;
    if (viaPort) {
      this.labels.requireOurs('pods', body);
      this.admit('pods', namespace, name);
    }
    if (this.podStore.has(key))
      this.fail('conflict', 409, 'AlreadyExists', `pods "${name}" already exists`);
    if (body.spec?.nodeName && (body.spec.schedulingGates ?? []).length > 0)
      this.fail(
        'invalid',
        422,
        'Invalid',
        `Pod "${name}" is invalid: spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared`,
      );
    const pod: V1Pod = clone(body);
    if (this.options.kueue && pod.metadata?.labels?.[KUEUE_QUEUE_NAME_LABEL]) {
      pod.metadata.finalizers = [...(pod.metadata.finalizers ?? []), KUEUE_POD_FINALIZER];
      pod.spec!.schedulingGates = [
        ...(pod.spec!.schedulingGates ?? []),
        { name: KUEUE_ADMISSION_GATE },
      ];
    }
    pod.metadata = {
      ...pod.metadata,
      uid: pod.metadata?.uid ?? this.uid(),
      creationTimestamp: this.now(),
    };
    pod.status = { phase: 'Pending' };
    this.podStore.set(key, pod);
    if (viaPort) this.happened(`create pod ${key}`);
    this.runScript(pod);
    this.kueueReconcile(pod);
    this.changed();
    return clone(pod);
  }

  /** Kueue's group reconcile: a complete group is admitted (its gate lifted) or held with a reason. */
  private kueueReconcile(pod: V1Pod): void {
    const group = pod.metadata?.labels?.[KUEUE_POD_GROUP_LABEL];
    if (!this.options.kueue || !group) return;
    const namespace = pod.metadata!.namespace!;
    const total = Number(pod.metadata?.annotations?.[KUEUE_GROUP_TOTAL_ANNOTATION]);
    const members = [...this.podStore.values()].filter(
      (p) =>
        p.metadata?.namespace === namespace && p.metadata.labels?.[KUEUE_POD_GROUP_LABEL] === group,
    );
    if (members.length < total) return;
    const key = `${namespace}/${group}`;
    if (!this.options.kueue.admits) {
      this.workloads.set(key, [
        { type: 'QuotaReserved', status: 'False', reason: 'Pending', message: FAKE_QUOTA_SHORT },
      ]);
      return;
    }
    this.clock.schedule(KUEUE_ADMIT_MS, () => {
      this.workloads.set(key, [
        { type: 'QuotaReserved', status: 'True', reason: 'QuotaReserved' },
        { type: 'Admitted', status: 'True', reason: 'Admitted' },
      ]);
      this.happened(`kueue admits ${key}`);
      for (const member of members) this.ungate(keyOf(member), KUEUE_ADMISSION_GATE);
    });
  }

  /** A gate lifted; the last one lets the kubelet run the pod. */
  private ungate(key: string, gate: string): boolean {
    const pod = this.podStore.get(key);
    const gates = pod?.spec?.schedulingGates ?? [];
    if (!pod || !gates.some((g) => g.name === gate)) return false;
    pod.spec!.schedulingGates = gates.filter((g) => g.name !== gate);
    if (gate !== KUEUE_ADMISSION_GATE) this.happened(`ungate pod ${key} ${gate}`);
    if (pod.spec!.schedulingGates.length === 0 && !pod.metadata?.deletionTimestamp)
      this.runScript(pod);
    this.changed();
    return true;
  }

  /** What kpm does before deleting a pod of a Kueue group: Kueue's finalizer goes first. */
  private releaseFromKueue(target: V1Pod): void {
    const pod = this.podStore.get(keyOf(target));
    if (!pod?.metadata?.finalizers?.includes(KUEUE_POD_FINALIZER)) return;
    pod.metadata.finalizers = pod.metadata.finalizers.filter((f) => f !== KUEUE_POD_FINALIZER);
  }

  /** The API server's admission of a create: its namespace is there and not being deleted. */
  private admit(resource: string, namespace: string, name: string): void {
    const ns = this.nsStore.get(namespace);
    if (!ns) this.fail('not-found', 404, 'NotFound', `namespaces "${namespace}" not found`);
    if (ns.metadata?.deletionTimestamp)
      this.fail(
        'forbidden',
        403,
        'Forbidden',
        `${resource} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
      );
  }

  /** An existing Service of that name: kpm's is handed to the new owners, another's refused. */
  private adoptService(key: string, existing: V1Service, service: V1Service): V1Service {
    if (!this.labels.isOurs(existing.metadata?.labels))
      throw new Error(`service ${key} exists and was not created by kpm`);
    const owners = service.metadata?.ownerReferences ?? [];
    const uids = (refs: V1Service['metadata'] | undefined) =>
      (refs?.ownerReferences ?? []).map((r) => r.uid).join(',');
    if (uids(existing.metadata) !== uids(service.metadata)) {
      existing.metadata = { ...existing.metadata, ownerReferences: owners };
      this.happened(`adopt service ${key}`);
    }
    return clone(existing);
  }

  /** The kubelet: the pod's life as its script says. */
  private runScript(pod: V1Pod): void {
    if ((pod.spec?.schedulingGates ?? []).length > 0) return;
    const script = this.scriptOf(pod.metadata!.name!);
    const key = keyOf(pod);
    if (script.waitingReason) {
      this.setContainer(pod, { waiting: { reason: script.waitingReason } }, false);
      return;
    }
    const ready = script.readyAfterMs ?? 0;
    this.later(key, Number.isFinite(ready) ? ready : 0, () => {
      this.setContainer(pod, { running: { startedAt: this.now() } }, Number.isFinite(ready));
      if (Number.isFinite(ready)) this.happened(`ready pod ${key}`);
    });
    if (script.exitsAfterMs !== undefined)
      this.later(key, script.exitsAfterMs, () => this.end(pod, script.exitCode ?? 0, 'exited'));
  }

  private deletePod(target: V1Pod, grace: number): boolean {
    const key = keyOf(target);
    const pod = this.podStore.get(key);
    const { uid } = target.metadata ?? {};
    if (!pod || (uid && pod.metadata?.uid !== uid) || !this.labels.isOurs(pod.metadata?.labels))
      return false;
    this.happened(`delete pod ${key} grace ${grace}`);
    pod.metadata!.deletionTimestamp ??= this.now();
    pod.metadata!.deletionGracePeriodSeconds = grace;
    if (isEnded(pod) || !isRunning(pod)) {
      this.clearTimers(key);
      if (!isEnded(pod)) this.end(pod, 137, 'killed');
      else this.release(pod);
      this.changed();
      return true;
    }
    if (grace === 0) {
      this.clearTimers(key);
      this.end(pod, 137, 'killed');
      return true;
    }
    const script = this.scriptOf(pod.metadata!.name!);
    const stops = script.stopsAfterMs ?? 1_000;
    if (script.unresponsive) {
      // Nobody stops it: only a delete with grace 0 (force) ends it.
    } else if (stops < grace * 1000) this.later(key, stops, () => this.end(pod, 0, 'stopped'));
    else this.later(key, grace * 1000, () => this.end(pod, 137, 'killed'));
    this.changed();
    return true;
  }

  /** The container ended: the pod's phase is terminal; the watcher records it, then releases it. */
  private end(pod: V1Pod, exitCode: number, how: string): void {
    if (isEnded(pod)) return;
    const key = keyOf(pod);
    this.clearTimers(key);
    this.setContainer(pod, { terminated: { exitCode, finishedAt: this.now() } }, false);
    pod.status!.phase = exitCode === 0 && !pod.metadata?.deletionTimestamp ? 'Succeeded' : 'Failed';
    this.happened(`${how} pod ${key} exit ${exitCode}`);
    if (this.watcherDelayMs !== undefined) {
      this.clock.schedule(this.watcherDelayMs, () => {
        const finalizer = this.labels.terminationFinalizer;
        const current = this.podStore.get(key);
        if (current !== pod || !pod.metadata?.finalizers?.includes(finalizer)) return;
        pod.metadata.finalizers = pod.metadata.finalizers.filter((f) => f !== finalizer);
        this.happened(`recorded pod ${key}`);
        this.release(pod);
        this.changed();
      });
    }
    this.release(pod);
    this.changed();
  }

  /** A deleted, ended pod without finalizers is removed, with the Services it owns. */
  private release(pod: V1Pod): void {
    const key = keyOf(pod);
    if (!pod.metadata?.deletionTimestamp || (pod.metadata.finalizers ?? []).length > 0) return;
    if (!isEnded(pod)) return;
    if (this.podStore.get(key) !== pod) return;
    this.podStore.delete(key);
    this.happened(`gone pod ${key}`);
    for (const [name, service] of this.serviceStore)
      if ((service.metadata?.ownerReferences ?? []).some((o) => o.uid === pod.metadata!.uid))
        this.serviceStore.delete(name);
    this.sweepNamespace(pod.metadata.namespace!);
  }

  private deleteNamespace(namespace: V1Namespace): boolean {
    const name = namespace.metadata!.name!;
    const stored = this.nsStore.get(name);
    if (!stored || !this.labels.isOurs(stored.metadata?.labels)) return false;
    this.happened(`delete namespace ${name}`);
    stored.metadata!.deletionTimestamp ??= this.now();
    stored.status = { phase: 'Terminating' };
    for (const pod of [...this.podStore.values()])
      if (pod.metadata?.namespace === name && !pod.metadata.deletionTimestamp)
        this.deletePod(pod, pod.spec?.terminationGracePeriodSeconds ?? 30);
    this.sweepNamespace(name);
    this.changed();
    return true;
  }

  private sweepNamespace(name: string): void {
    const ns = this.nsStore.get(name);
    if (!ns?.metadata?.deletionTimestamp) return;
    if ([...this.podStore.values()].some((p) => p.metadata?.namespace === name)) return;
    this.nsStore.delete(name);
    for (const key of [...this.recordStore.keys()])
      if (key.startsWith(`${name}/`)) this.recordStore.delete(key);
    this.happened(`gone namespace ${name}`);
  }

  // --- waits -------------------------------------------------------------------------------------

  private async waitPods(
    pods: readonly V1Pod[],
    done: (pod: V1Pod | undefined) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<PodWait> {
    const uids = pods.map((p) => p.metadata!.uid!);
    const current = (uid: string) =>
      [...this.podStore.values()].find((p) => p.metadata?.uid === uid);
    const pending = () => uids.filter((uid) => !done(current(uid) && clone(current(uid)!)));
    await this.waitUntil(() => pending().length === 0, timeoutMs, signal);
    const last = new Map(uids.map((uid) => [uid, current(uid) && clone(current(uid)!)]));
    return { pending: pending(), last };
  }

  /** True once `holds`, false at the timeout or when the signal aborts. */
  private waitUntil(
    holds: () => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    if (holds()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const stop = new AbortController();
      const finish = (result: boolean) => {
        this.listeners.delete(check);
        signal?.removeEventListener('abort', onAbort);
        stop.abort();
        resolve(result);
      };
      const check = () => holds() && finish(true);
      const onAbort = () => finish(false);
      this.listeners.add(check);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) return finish(false);
      void this.clock.sleep(timeoutMs, stop.signal).then(() => {
        if (!stop.signal.aborted) finish(holds());
      });
    });
  }

  // --- helpers -----------------------------------------------------------------------------------

  private processesWhere(matches: (pod: V1Pod) => boolean): ProcessPod[] {
    return [...this.podStore.values()]
      .filter((p) => this.labels.isOurs(p.metadata?.labels) && matches(p))
      .flatMap((p) => processPodOf(clone(p), this.labels) ?? []);
  }

  private scriptOf(name: string): PodScript {
    return { ...DEFAULT_SCRIPT, ...this.options.defaultScript, ...this.scripts.get(name) };
  }

  private setContainer(pod: V1Pod, state: V1ContainerStatus['state'], ready: boolean): void {
    const name = pod.spec?.containers?.[0]?.name ?? 'main';
    pod.status = {
      ...pod.status,
      hostIP: NODE_IP,
      podIP: pod.spec?.hostNetwork ? NODE_IP : (pod.status?.podIP ?? `10.88.0.${++this.ips}`),
      phase: state?.running ? 'Running' : pod.status?.phase,
      startTime: pod.status?.startTime ?? this.now(),
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      containerStatuses: [{ name, image: '', imageID: '', ready, restartCount: 0, state }],
    };
    this.changed();
  }

  private later(key: string, ms: number, action: () => void): void {
    const cancel = this.clock.schedule(ms, action);
    this.timers.set(key, [...(this.timers.get(key) ?? []), cancel]);
  }

  private clearTimers(key: string): void {
    for (const cancel of this.timers.get(key) ?? []) cancel();
    this.timers.delete(key);
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  private happened(what: string): void {
    this.history.push({ at: this.clock.now() - this.started, what });
  }

  private fail(kind: KubeFailure['kind'], status: number, reason: string, message: string): never {
    throw new KubeCallFailed({ kind, status, reason, message }, 1);
  }

  private uid(): string {
    return `uid-${++this.uids}`;
  }

  private now(): Date {
    return new Date(this.clock.now());
  }
}

function keyOf(pod: V1Pod): string {
  return `${pod.metadata!.namespace}/${pod.metadata!.name}`;
}

function isEnded(pod: V1Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

function isRunning(pod: V1Pod): boolean {
  return Boolean(pod.status?.containerStatuses?.some((s) => s.state?.running));
}

function nodeOf(name: string, state: NodeState, allocatable?: Record<string, string>): V1Node {
  const taints =
    state === 'tainted' ? [{ key: 'dedicated', value: 'daq', effect: 'NoSchedule' }] : [];
  return {
    metadata: { name },
    spec: { unschedulable: state === 'cordoned', taints },
    status: {
      conditions: [{ type: 'Ready', status: state === 'not-ready' ? 'False' : 'True' }],
      ...(allocatable ? { allocatable } : {}),
    },
  };
}

function clone<T>(value: T): T {
  return structuredClone(value);
}
