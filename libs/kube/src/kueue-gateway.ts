import type { KpmLabels } from './kpm-labels';
import type { KueueApi, KueueCondition, LocalQueue } from './http/kube-kueue-api';
import { failureOf } from './kube-errors';
import { withKubeRetry, type KubeRetryOptions } from './kube-retry';

/** Kueue's finalizer on the pods its pod integration manages (until it lets a pod go). */
export const KUEUE_POD_FINALIZER = 'kueue.x-k8s.io/managed';
/** Kueue's scheduling gate: on every pod it manages until its Workload is admitted. */
export const KUEUE_ADMISSION_GATE = 'kueue.x-k8s.io/admission';
/** The pod labels and annotation of a Kueue pod group (Kueue's `podconstants`). */
export const KUEUE_QUEUE_NAME_LABEL = 'kueue.x-k8s.io/queue-name';
export const KUEUE_POD_GROUP_LABEL = 'kueue.x-k8s.io/pod-group-name';
export const KUEUE_GROUP_TOTAL_ANNOTATION = 'kueue.x-k8s.io/pod-group-total-count';

/** The LocalQueues kpm makes in its sessions' namespaces, and what Kueue says of a group. */
export class KueueGateway {
  constructor(
    private readonly api: KueueApi,
    private readonly labels: KpmLabels,
    private readonly retry: KubeRetryOptions = {},
  ) {}

  /**
   * The LocalQueue `name` in `namespace`, pointing at `clusterQueue`, carrying kpm's creator
   * label; one there already is kept as it is (its ClusterQueue is the admin's to change) and
   * returned.
   */
  async ensureLocalQueue(
    namespace: string,
    name: string,
    clusterQueue: string,
  ): Promise<LocalQueue> {
    const body: LocalQueue = {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'LocalQueue',
      metadata: { name, namespace, labels: { [this.labels.creator]: 'kpm' } },
      spec: { clusterQueue },
    };
    try {
      return await withKubeRetry(
        () => this.api.createNamespacedLocalQueue({ namespace, body }),
        this.retry,
      );
    } catch (error) {
      if (failureOf(error).kind !== 'conflict') throw error;
      return withKubeRetry(
        () => this.api.readNamespacedLocalQueue({ namespace, name }),
        this.retry,
      );
    }
  }

  /**
   * The Workload's conditions (Kueue names a pod group's Workload after the group); undefined
   * while Kueue has made none.
   */
  async workloadConditions(namespace: string, name: string): Promise<KueueCondition[] | undefined> {
    try {
      const workload = await withKubeRetry(
        () => this.api.readNamespacedWorkload({ namespace, name }),
        this.retry,
      );
      return workload.status?.conditions ?? [];
    } catch (error) {
      if (failureOf(error).kind === 'not-found') return undefined;
      throw error;
    }
  }
}
