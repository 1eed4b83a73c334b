/**
 * The boot-worker's port to Kubernetes: what its handlers do to the cluster, in their words, and
 * nothing more. Only kpm's own objects are touched (creator-labelled); waits follow watches.
 *
 * `KubeCluster` (kube-cluster.ts) is the API server behind it; `FakeCluster`
 * (`__fixtures__/fake-cluster.ts`) an in-memory cluster on a virtual clock, so the handlers'
 * table tests run a boot, a kill's grace periods or a restart in milliseconds.
 */
import type { V1ConfigMap, V1Namespace, V1Pod, V1Service } from '@kubernetes/client-node';
import type { Role } from '@kpm/contracts';
import type { KpmLabels, KueueCondition, NodeVerdict } from '@kpm/kube';
import type { ProcessPod } from './process-pod';

export interface Cluster {
  /** The labels, annotations and finalizer of kpm's objects. */
  readonly labels: KpmLabels;
  readonly namespaces: SessionNamespaces;
  readonly pods: ProcessPods;
  readonly services: ProcessServices;
  readonly nodes: Nodes;
  readonly restartRecords: RestartRecords;
  /** Kueue's side of kpm's pod groups (docs/design.md §4 "Kueue pod groups"). */
  readonly kueue: KueueQueues;
}

/** One namespace per session. */
export interface SessionNamespaces {
  /** Any namespace of that name (kpm's or not), or undefined. */
  read(name: string): Promise<V1Namespace | undefined>;
  /** Created with kpm's creator label and `labels`; an existing one is returned as it is. */
  create(name: string, labels: Record<string, string>): Promise<V1Namespace>;
  /** Merges labels into a namespace of kpm's; another's is left alone. */
  setLabels(namespace: V1Namespace, labels: Record<string, string>): Promise<V1Namespace>;
  /** Deletes a namespace of kpm's; false when gone already or not kpm's. */
  delete(namespace: V1Namespace): Promise<boolean>;
  /** The names of kpm's namespaces, sorted. */
  listOurs(): Promise<string[]>;
  /** Waits for the namespace to be gone; false at the timeout. */
  waitGone(name: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
}

/** kpm's pods, each read as the process it runs. */
export interface ProcessPods {
  /** kpm's processes in one session, or in all. */
  processes(session?: string): Promise<ProcessPod[]>;
  /** kpm's processes in any session that carry one of `uuids`. */
  withUuids(uuids: readonly string[]): Promise<ProcessPod[]>;
  /**
   * kpm's processes of `session` whose pod is named one of `podNames`: what a boot's own names
   * collide with, read without reading the whole session.
   */
  named(session: string, podNames: readonly string[]): Promise<ProcessPod[]>;
  /** kpm's processes of `session` in `role` (a pod without a role label: by its derived role). */
  inRole(session: string, role: Role): Promise<ProcessPod[]>;
  /** Creates the pod in its namespace; a taken name fails with a `conflict` (`failureOf`). */
  create(pod: V1Pod): Promise<V1Pod>;
  /** The pod if it exists and is kpm's. */
  read(namespace: string, name: string): Promise<V1Pod | undefined>;
  /**
   * Deletes with the grace period; false when the pod is gone already (or is another by now). A
   * pod in a Kueue pod group is let go of Kueue first (its `kueue.x-k8s.io/managed` finalizer
   * removed, as Kueue itself does with a group's pods it no longer needs): else Kueue keeps a
   * deleted pod until its whole group ends, and its name is never free for a restart. kpm's own
   * finalizer still keeps it until the watcher has recorded its end.
   */
  delete(pod: V1Pod, gracePeriodSeconds: number): Promise<boolean>;
  /** Lifts one scheduling gate of the pod; false when the pod or that gate is gone already. */
  ungate(pod: V1Pod, gate: string): Promise<boolean>;
  /** The last lines of the pod's main container log, bounded in bytes. */
  logs(pod: V1Pod, tailLines: number, limitBytes: number): Promise<string[]>;
  /** Waits until `done` holds for every pod (undefined: gone), the timeout passes or `signal` aborts. */
  waitFor(
    pods: readonly V1Pod[],
    done: (pod: V1Pod | undefined) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<PodWait>;
}

export interface PodWait {
  /** The uids not done when the wait ended. */
  pending: string[];
  /** The last state seen of each pod by uid; undefined once gone. */
  last: Map<string, V1Pod | undefined>;
}

/** The Services of processes: headless discovery, and drunc's NodePorts. */
export interface ProcessServices {
  /**
   * Creates the Service in its namespace, or hands an existing one of kpm's over to its owner;
   * the Service as the API server has it (its ClusterIP).
   */
  ensure(service: V1Service): Promise<V1Service>;
  /** kpm's Service of that name, or undefined. */
  read(namespace: string, name: string): Promise<V1Service | undefined>;
  /** `namespace/name` of the Service, in any namespace, that holds `nodePort`. */
  nodePortHolder(nodePort: number): Promise<string | undefined>;
}

/** drunc's host check: Ready and schedulable nodes. */
export interface Nodes {
  check(host: string): Promise<NodeVerdict>;
  /** A usable node spread by `key` (the process uuid): the same one on a redelivery. */
  choose(key: string): Promise<string | undefined>;
  /** Every node and whether it is usable, for a message: `n1 (usable), n2 (cordoned)`. */
  summary(): Promise<string>;
  /** What the pods bound to `host` and not ended request, by resource, in thousandths (an all-or-nothing fit). */
  requested(host: string): Promise<Record<string, number>>;
}

/** Restarts in progress (restart-record.ts), kept as ConfigMaps so a redelivery resumes them. */
export interface KueueQueues {
  /** The LocalQueue `name` in the namespace, pointing at `clusterQueue`; one there already is kept. */
  ensureLocalQueue(namespace: string, name: string, clusterQueue: string): Promise<void>;
  /** The conditions of the Workload Kueue made for a pod group; undefined while there is none. */
  workloadConditions(namespace: string, group: string): Promise<KueueCondition[] | undefined>;
}

export interface RestartRecords {
  /** kpm's records carrying the label equalities, in every namespace. */
  list(labels: Record<string, string>): Promise<V1ConfigMap[]>;
  /** Created in its namespace; an existing one of that name is fine. */
  create(record: V1ConfigMap): Promise<void>;
  /** Deleted; gone already is fine. */
  delete(record: V1ConfigMap): Promise<void>;
}
