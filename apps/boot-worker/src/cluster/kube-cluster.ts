/**
 * The boot-worker's Cluster port on the API server: kpm's creator-scoped gateways (libs/kube),
 * the node directory and watch-based waits, built once from the kubeconfig and the settings.
 */
import type { V1Namespace, V1Pod } from '@kubernetes/client-node';
import type { Role } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import {
  ConfigMapGateway,
  KpmLabels,
  KUEUE_POD_FINALIZER,
  KueueGateway,
  NamespaceGateway,
  NodeDirectory,
  ObjectWaiter,
  PodGateway,
  ServiceGateway,
  type KubeApis,
  type KubeRetryOptions,
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
} from './cluster';
import { processPodOf, type ProcessPod } from './process-pod';

/** Logs are a convenience: one short retry, never the full API deadline. */
const LOG_RETRY: KubeRetryOptions = { deadlineMs: 3_000 };

/** A label selector's `in (...)` holds at most this many values (uuids, pod names). */
const VALUES_PER_SELECTOR = 100;

/** One list per `VALUES_PER_SELECTOR` values, one after the other, their pods together. */
async function listInChunks(
  values: readonly string[],
  list: (chunk: readonly string[]) => Promise<V1Pod[]>,
): Promise<V1Pod[]> {
  const found: V1Pod[] = [];
  for (let i = 0; i < values.length; i += VALUES_PER_SELECTOR) {
    found.push(...(await list(values.slice(i, i + VALUES_PER_SELECTOR))));
  }
  return found;
}

export class KubeCluster implements Cluster {
  readonly labels: KpmLabels;
  readonly namespaces: SessionNamespaces;
  readonly pods: ProcessPods;
  readonly services: ProcessServices;
  readonly nodes: Nodes;
  readonly restartRecords: RestartRecords;
  readonly kueue: KueueQueues;

  constructor(apis: KubeApis, settings: Pick<KpmSettings, 'podManagement' | 'labels'>) {
    const { podManagement } = settings;
    const retry: KubeRetryOptions = { deadlineMs: podManagement.apiRetryDeadlineSeconds * 1000 };
    const labels = new KpmLabels(settings.labels.domain);
    const waiter = new ObjectWaiter(apis.watch);
    this.labels = labels;
    this.namespaces = kubeNamespaces(apis, new NamespaceGateway(apis.core, labels, retry), waiter);
    this.pods = new KubePods(apis, labels, retry, waiter);
    const services = new ServiceGateway(apis.core, labels, retry);
    this.services = {
      ensure: (service) => services.ensure(service.metadata!.namespace!, service),
      read: (namespace, name) => services.read(namespace, name),
      nodePortHolder: (nodePort) => services.nodePortHolder(nodePort),
    };
    this.nodes = new NodeDirectory(apis.core, {
      expiryMs: podManagement.hostCacheExpirySeconds * 1000,
      retry,
    });
    const configMaps = new ConfigMapGateway(apis.core, labels, retry);
    this.restartRecords = {
      list: (selector) => configMaps.list(selector),
      create: async (record) => void (await configMaps.create(record.metadata!.namespace!, record)),
      delete: (record) => configMaps.delete(record),
    };
    const kueue = new KueueGateway(apis.kueue, labels, retry);
    this.kueue = {
      ensureLocalQueue: async (namespace, name, clusterQueue) =>
        void (await kueue.ensureLocalQueue(namespace, name, clusterQueue)),
      workloadConditions: (namespace, group) => kueue.workloadConditions(namespace, group),
    };
  }
}

function kubeNamespaces(
  apis: KubeApis,
  gateway: NamespaceGateway,
  waiter: ObjectWaiter,
): SessionNamespaces {
  return {
    read: (name) => gateway.read(name),
    create: (name, labels) => gateway.create(name, labels),
    setLabels: (namespace, labels) => gateway.setLabels(namespace, labels),
    delete: (namespace) => gateway.delete(namespace),
    listOurs: () => gateway.listOurs(),
    waitGone: async (name, timeoutMs, signal) => {
      const fieldSelector = `metadata.name=${name}`;
      const result = await waiter.waitFor<V1Namespace>({
        path: '/api/v1/namespaces',
        list: () => apis.core.listNamespace({ fieldSelector }),
        fieldSelector,
        keys: [name],
        keyOf: (ns) => ns.metadata?.name,
        done: (ns) => ns === undefined,
        timeoutMs,
        signal,
      });
      return result.pending.length === 0;
    },
  };
}

class KubePods implements ProcessPods {
  private readonly gateway: PodGateway;
  private readonly logReader: PodGateway;

  constructor(
    private readonly apis: KubeApis,
    private readonly labels: KpmLabels,
    retry: KubeRetryOptions,
    private readonly waiter: ObjectWaiter,
  ) {
    this.gateway = new PodGateway(apis.core, labels, retry);
    this.logReader = new PodGateway(apis.core, labels, LOG_RETRY);
  }

  async processes(session?: string): Promise<ProcessPod[]> {
    const extra = session ? { [this.labels.session]: session } : {};
    const { pods } = await this.gateway.list(extra, session);
    return this.asProcesses(pods);
  }

  async named(session: string, podNames: readonly string[]): Promise<ProcessPod[]> {
    const inSession = `${this.labels.session}=${session}`;
    const pods = await listInChunks(podNames, (names) =>
      this.gateway.listSelected(session, `${inSession},${this.labels.app} in (${names.join(',')})`),
    );
    return this.asProcesses(pods);
  }

  async inRole(session: string, role: Role): Promise<ProcessPod[]> {
    const inSession = `${this.labels.session}=${session}`;
    const [labelled, unlabelled] = await Promise.all([
      this.gateway.listSelected(session, `${inSession},${this.labels.role}=${role}`),
      this.gateway.listSelected(session, `${inSession},!${this.labels.role}`),
    ]);
    return this.asProcesses([...labelled, ...unlabelled]).filter((p) => p.role === role);
  }

  async withUuids(uuids: readonly string[]): Promise<ProcessPod[]> {
    return this.asProcesses(
      await listInChunks(uuids, (chunk) => this.gateway.listWithUuids(chunk)),
    );
  }

  create(pod: V1Pod): Promise<V1Pod> {
    return this.gateway.create(pod.metadata!.namespace!, pod);
  }

  read(namespace: string, name: string): Promise<V1Pod | undefined> {
    return this.gateway.read(namespace, name);
  }

  async delete(pod: V1Pod, gracePeriodSeconds: number): Promise<boolean> {
    // Kueue's finalizer off first; the pod in hand may be older than the API server's.
    if (pod.metadata?.finalizers?.includes(KUEUE_POD_FINALIZER))
      await this.gateway.removeFinalizer(pod, KUEUE_POD_FINALIZER, { reread: true });
    return this.gateway.delete(pod, gracePeriodSeconds);
  }

  ungate(pod: V1Pod, gate: string): Promise<boolean> {
    return this.gateway.removeSchedulingGate(pod, gate);
  }

  logs(pod: V1Pod, tailLines: number, limitBytes: number): Promise<string[]> {
    return this.logReader.logs(pod, tailLines, limitBytes);
  }

  /** One watch: of the pods' namespace when they share one, else of every namespace. */
  waitFor(
    pods: readonly V1Pod[],
    done: (pod: V1Pod | undefined) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<PodWait> {
    const namespaces = [...new Set(pods.map((p) => p.metadata!.namespace!))];
    const one = namespaces.length === 1 ? namespaces[0] : undefined;
    const labelSelector = this.labels.creatorSelector();
    const { core } = this.apis;
    return this.waiter.waitFor<V1Pod>({
      path: one ? `/api/v1/namespaces/${one}/pods` : '/api/v1/pods',
      list: () =>
        one
          ? core.listNamespacedPod({ namespace: one, labelSelector })
          : core.listPodForAllNamespaces({ labelSelector }),
      labelSelector,
      keys: pods.map((p) => p.metadata!.uid!),
      keyOf: (pod) => pod.metadata?.uid,
      done,
      timeoutMs,
      signal,
    });
  }

  private asProcesses(pods: readonly V1Pod[]): ProcessPod[] {
    return pods.flatMap((pod) => processPodOf(pod, this.labels) ?? []);
  }
}
