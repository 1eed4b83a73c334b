/**
 * The Kubernetes side of the boot-worker: kpm's gateways (creator-scoped), the node directory
 * and watch-based waits, built once from the kubeconfig and the settings.
 */
import type { V1Namespace, V1Pod } from '@kubernetes/client-node';
import type { KpmSettings } from '@kpm/config';
import {
  ConfigMapGateway,
  KpmLabels,
  NamespaceGateway,
  NodeDirectory,
  ObjectWaiter,
  PodGateway,
  ServiceGateway,
  hasPodEnded,
  type ImagePullGrace,
  type KubeApis,
  type KubeRetryOptions,
} from '@kpm/kube';
import { processPodOf, type ProcessPod } from './kill/process-pod';

/** Logs are a convenience: one short retry, never the full API deadline. */
const LOG_RETRY: KubeRetryOptions = { deadlineMs: 3_000 };

export class Cluster {
  readonly labels: KpmLabels;
  readonly pods: PodGateway;
  readonly logs: PodGateway;
  readonly namespaces: NamespaceGateway;
  readonly services: ServiceGateway;
  readonly records: ConfigMapGateway;
  readonly nodes: NodeDirectory;
  /** The watcher's list of fatal waiting reasons: what has ended is the same for both services. */
  readonly fatal: ReadonlySet<string>;
  /** The watcher's image-pull grace, for the same reason. */
  private readonly imagePullGraceSeconds: number;
  private readonly waiter: ObjectWaiter;

  constructor(
    private readonly apis: KubeApis,
    settings: KpmSettings,
  ) {
    const retry: KubeRetryOptions = {
      deadlineMs: settings.podManagement.apiRetryDeadlineSeconds * 1000,
    };
    this.labels = new KpmLabels(settings.labels.domain);
    this.pods = new PodGateway(apis.core, this.labels, retry);
    this.logs = new PodGateway(apis.core, this.labels, LOG_RETRY);
    this.namespaces = new NamespaceGateway(apis.core, this.labels, retry);
    this.services = new ServiceGateway(apis.core, this.labels, retry);
    this.records = new ConfigMapGateway(apis.core, this.labels, retry);
    this.nodes = new NodeDirectory(apis.core, {
      expiryMs: settings.podManagement.hostCacheExpirySeconds * 1000,
      retry,
    });
    this.waiter = new ObjectWaiter(apis.config);
    this.fatal = new Set(settings.watcher.fatalWaitingReasons);
    this.imagePullGraceSeconds = settings.watcher.imagePullGraceSeconds;
  }

  /** The image-pull grace as of now (pod-ending's rule). */
  imagePull(): ImagePullGrace {
    return { graceSeconds: this.imagePullGraceSeconds, now: new Date() };
  }

  /** kpm's processes, in one session or all: creator-labelled list calls only. */
  async processes(session?: string): Promise<ProcessPod[]> {
    const extra = session ? { [this.labels.session]: session } : {};
    const { pods } = await this.pods.list(extra, session);
    return pods.flatMap((pod) => processPodOf(pod, this.labels) ?? []);
  }

  /** kpm's processes in any session that carry one of `uuids`. */
  async processesWithUuids(uuids: readonly string[]): Promise<ProcessPod[]> {
    const found: ProcessPod[] = [];
    for (let i = 0; i < uuids.length; i += 100) {
      const pods = await this.pods.listWithUuids(uuids.slice(i, i + 100));
      found.push(...pods.flatMap((pod) => processPodOf(pod, this.labels) ?? []));
    }
    return found;
  }

  /** Waits until the pods have ended or are gone; the uids still running when it gave up. */
  async waitEnded(
    pods: readonly V1Pod[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<string[]> {
    const result = await this.waitPods(
      pods,
      (p) => hasPodEnded(p, this.fatal, this.imagePull()),
      timeoutMs,
      signal,
    );
    return result.pending;
  }

  /** Waits until the pod objects are gone (the watcher has recorded them and released them). */
  async waitGone(
    pods: readonly V1Pod[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<string[]> {
    const result = await this.waitPods(pods, (pod) => pod === undefined, timeoutMs, signal);
    return result.pending;
  }

  /** The pod's last state once `done` holds, or at the timeout. */
  async waitPod(
    pod: V1Pod,
    done: (pod: V1Pod | undefined) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<V1Pod | undefined> {
    const result = await this.waitPods([pod], done, timeoutMs, signal);
    return result.last.get(pod.metadata!.uid!);
  }

  /** Waits for a (Terminating) namespace to be gone; false at the timeout. */
  async waitNamespaceGone(name: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const fieldSelector = `metadata.name=${name}`;
    const result = await this.waiter.waitFor<V1Namespace>({
      path: '/api/v1/namespaces',
      list: () => this.apis.core.listNamespace({ fieldSelector }),
      fieldSelector,
      keys: [name],
      keyOf: (ns) => ns.metadata?.name,
      done: (ns) => ns === undefined,
      timeoutMs,
      signal,
    });
    return result.pending.length === 0;
  }

  private waitPods(
    pods: readonly V1Pod[],
    done: (pod: V1Pod | undefined) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ) {
    const namespaces = [...new Set(pods.map((p) => p.metadata!.namespace!))];
    const one = namespaces.length === 1 ? namespaces[0] : undefined;
    const labelSelector = this.labels.creatorSelector();
    return this.waiter.waitFor<V1Pod>({
      path: one ? `/api/v1/namespaces/${one}/pods` : '/api/v1/pods',
      list: () =>
        one
          ? this.apis.core.listNamespacedPod({ namespace: one, labelSelector })
          : this.apis.core.listPodForAllNamespaces({ labelSelector }),
      labelSelector,
      keys: pods.map((p) => p.metadata!.uid!),
      keyOf: (pod) => pod.metadata?.uid,
      done,
      timeoutMs,
      signal,
    });
  }
}
