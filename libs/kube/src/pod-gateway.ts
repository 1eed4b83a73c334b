import type { V1Pod } from '@kubernetes/client-node';
import { PatchType, type CoreApi } from './http/kube-core-api';
import type { KpmLabels } from './kpm-labels';
import { deleteIfSame } from './guarded-calls';
import { failureOf } from './kube-errors';
import { withKubeRetry, type KubeRetryOptions } from './kube-retry';

/** A guarded removal tries this often when the pod in hand is stale (it reads the pod between). */
const REREADS = 3;

/** Where one entry of a list of a pod is, for a guarded removal. */
interface ListEntry {
  /** Its index in the pod's list; -1 when it is not there. */
  indexIn(pod: V1Pod): number;
  /** The JSON pointer of the entry at an index, and of the value `test` compares there. */
  path(index: number): string;
  testPath(index: number): string;
  value: string;
}

/**
 * Pods as kpm may touch them: every list is creator-labelled, deletes and patches refuse pods
 * without kpm's creator label.
 */
export class PodGateway {
  constructor(
    private readonly core: CoreApi,
    private readonly labels: KpmLabels,
    private readonly retry: KubeRetryOptions = {},
  ) {}

  /** Lists kpm's pods (optionally narrowed by extra label equalities), in one namespace or all. */
  async list(
    extra: Record<string, string> = {},
    namespace?: string,
  ): Promise<{ pods: V1Pod[]; resourceVersion: string }> {
    const labelSelector = this.labels.creatorSelector(extra);
    const list = await withKubeRetry(
      () =>
        namespace
          ? this.core.listNamespacedPod({ namespace, labelSelector })
          : this.core.listPodForAllNamespaces({ labelSelector }),
      this.retry,
    );
    return { pods: list.items, resourceVersion: list.metadata?.resourceVersion ?? '' };
  }

  /** kpm's pods of `namespace` that `selector` also selects (label selector syntax). */
  async listSelected(namespace: string, selector: string): Promise<V1Pod[]> {
    const labelSelector = `${this.labels.creatorSelector()},${selector}`;
    const list = await withKubeRetry(
      () => this.core.listNamespacedPod({ namespace, labelSelector }),
      this.retry,
    );
    return list.items;
  }

  /** kpm's pods, in any namespace, whose uuid label is one of `uuids` (at most 100 a call). */
  async listWithUuids(uuids: readonly string[]): Promise<V1Pod[]> {
    if (uuids.length === 0) return [];
    const labelSelector = `${this.labels.creatorSelector()},${this.labels.uuid} in (${uuids.join(',')})`;
    const list = await withKubeRetry(
      () => this.core.listPodForAllNamespaces({ labelSelector }),
      this.retry,
    );
    return list.items;
  }

  async create(namespace: string, pod: V1Pod): Promise<V1Pod> {
    this.labels.requireOurs('pods', pod);
    return withKubeRetry(() => this.core.createNamespacedPod({ namespace, body: pod }), this.retry);
  }

  /** The pod if it exists and is kpm's, else undefined. */
  async read(namespace: string, name: string): Promise<V1Pod | undefined> {
    try {
      const pod = await withKubeRetry(
        () => this.core.readNamespacedPod({ namespace, name }),
        this.retry,
      );
      return this.labels.isOurs(pod.metadata?.labels) ? pod : undefined;
    } catch (error) {
      if (failureOf(error).kind === 'not-found') return undefined;
      throw error;
    }
  }

  /** Deletes a pod of kpm's; a pod already gone is fine (returns false). */
  async delete(pod: V1Pod, gracePeriodSeconds: number): Promise<boolean> {
    const { namespace, name, uid } = pod.metadata ?? {};
    if (!namespace || !name || !this.labels.isOurs(pod.metadata?.labels)) return false;
    return deleteIfSame(
      () =>
        this.core.deleteNamespacedPod({
          namespace,
          name,
          gracePeriodSeconds,
          // Never delete a newer pod that reused the name (restart keeps the uuid and name).
          body: { preconditions: uid ? { uid } : undefined, gracePeriodSeconds },
        }),
      this.retry,
    );
  }

  /**
   * Removes one finalizer with a JSON patch guarded by a `test` op, so a concurrent change of the
   * finalizer list makes the patch fail (and be retried on the next event) instead of removing
   * the wrong entry; with `reread`, the pod is read again and the patch made on what it says.
   * Returns false when the pod or the finalizer is already gone.
   */
  async removeFinalizer(
    pod: V1Pod,
    finalizer: string,
    options: { reread?: boolean } = {},
  ): Promise<boolean> {
    const entry: ListEntry = {
      indexIn: (p) => p.metadata?.finalizers?.indexOf(finalizer) ?? -1,
      path: (i) => `/metadata/finalizers/${i}`,
      testPath: (i) => `/metadata/finalizers/${i}`,
      value: finalizer,
    };
    return this.removeEntry(pod, entry, options.reread ? REREADS : 1);
  }

  /**
   * Lifts one scheduling gate of a pod of kpm's (a gate can only be removed, never added back),
   * guarded as `removeFinalizer` is, the pod read again when the guard fails. Returns false when
   * the pod or the gate is already gone.
   */
  async removeSchedulingGate(pod: V1Pod, gate: string): Promise<boolean> {
    const entry: ListEntry = {
      indexIn: (p) => p.spec?.schedulingGates?.findIndex((g) => g.name === gate) ?? -1,
      path: (i) => `/spec/schedulingGates/${i}`,
      testPath: (i) => `/spec/schedulingGates/${i}/name`,
      value: gate,
    };
    return this.removeEntry(pod, entry, REREADS);
  }

  /**
   * One entry of a list of a pod of kpm's removed by a `test`-guarded JSON patch. A guard that
   * fails (`invalid`: the pod in hand is older than the API server's) throws after `attempts`
   * tries; before, the pod is read again (gone, or another pod by now: false).
   */
  private async removeEntry(pod: V1Pod, entry: ListEntry, attempts: number): Promise<boolean> {
    const { namespace, name, uid } = pod.metadata ?? {};
    if (!namespace || !name || !this.labels.isOurs(pod.metadata?.labels)) return false;
    let current: V1Pod | undefined = pod;
    for (let attempt = 1; ; attempt++) {
      const index = entry.indexIn(current);
      if (index < 0) return false;
      const patch = [
        { op: 'test', path: entry.testPath(index), value: entry.value },
        { op: 'remove', path: entry.path(index) },
      ];
      try {
        await withKubeRetry(
          () => this.core.patchNamespacedPod({ namespace, name, body: patch }, PatchType.json),
          this.retry,
        );
        return true;
      } catch (error) {
        const { kind } = failureOf(error);
        if (kind === 'not-found') return false;
        if (kind !== 'invalid' || attempt >= attempts) throw error;
      }
      current = await this.read(namespace, name);
      if (!current || current.metadata?.uid !== uid) return false;
    }
  }

  /** The last lines of the pod's main container log, bounded in bytes. */
  async logs(pod: V1Pod, tailLines: number, limitBytes: number): Promise<string[]> {
    const { namespace, name } = pod.metadata ?? {};
    if (!namespace || !name) return [];
    const text = await withKubeRetry(
      () => this.core.readNamespacedPodLog({ namespace, name, tailLines, limitBytes }),
      this.retry,
    );
    return text.split('\n').filter((line, index, all) => line !== '' || index < all.length - 1);
  }
}
