import type { V1Namespace } from '@kubernetes/client-node';
import { PatchType, type CoreApi } from './http/kube-core-api';
import type { KpmLabels } from './kpm-labels';
import { createOrExisting, deleteIfSame } from './guarded-calls';
import { failureOf } from './kube-errors';
import { withKubeRetry, type KubeRetryOptions } from './kube-retry';

/**
 * Session namespaces as kpm may touch them: created with kpm's creator label, deleted only when
 * they carry it. Reading is allowed for any namespace, so a boot can refuse a session whose
 * namespace belongs to someone else.
 */
export class NamespaceGateway {
  constructor(
    private readonly core: CoreApi,
    private readonly labels: KpmLabels,
    private readonly retry: KubeRetryOptions = {},
  ) {}

  /** The namespace, or undefined when there is none. */
  async read(name: string): Promise<V1Namespace | undefined> {
    try {
      return await withKubeRetry(() => this.core.readNamespace({ name }), this.retry);
    } catch (error) {
      if (failureOf(error).kind === 'not-found') return undefined;
      throw error;
    }
  }

  /** The names of the namespaces kpm created (its creator label), sorted. */
  async listOurs(): Promise<string[]> {
    const list = await withKubeRetry(
      () => this.core.listNamespace({ labelSelector: this.labels.creatorSelector() }),
      this.retry,
    );
    return list.items.map((namespace) => namespace.metadata?.name ?? '').sort();
  }

  /**
   * Creates the namespace with kpm's creator label plus `labels`/`annotations`; when it already
   * exists (a concurrent or redelivered boot) the existing one is returned for the caller to judge.
   */
  async create(
    name: string,
    labels: Record<string, string>,
    annotations: Record<string, string> = {},
  ): Promise<V1Namespace> {
    const body: V1Namespace = {
      metadata: { name, labels: { ...labels, [this.labels.creator]: 'kpm' }, annotations },
    };
    return createOrExisting(
      () => this.core.createNamespace({ body }),
      () => this.read(name),
      this.retry,
    );
  }

  /** Sets labels on a namespace of kpm's (a merge patch); another's is left alone. */
  async setLabels(namespace: V1Namespace, labels: Record<string, string>): Promise<V1Namespace> {
    const name = namespace.metadata?.name;
    if (!name || !this.labels.isOurs(namespace.metadata?.labels)) return namespace;
    return withKubeRetry(
      () => this.core.patchNamespace({ name, body: { metadata: { labels } } }, PatchType.merge),
      this.retry,
    );
  }

  /** Deletes a namespace of kpm's; false when it is gone already or is not kpm's. */
  async delete(namespace: V1Namespace): Promise<boolean> {
    const { name, uid } = namespace.metadata ?? {};
    if (!name || !this.labels.isOurs(namespace.metadata?.labels)) return false;
    return deleteIfSame(
      () => this.core.deleteNamespace({ name, body: { preconditions: uid ? { uid } : undefined } }),
      this.retry,
    );
  }
}
