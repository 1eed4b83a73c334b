import type { V1ConfigMap } from '@kubernetes/client-node';
import type { CoreApi } from './http/kube-core-api';
import type { KpmLabels } from './kpm-labels';
import { withKubeRetry, type KubeRetryOptions } from './kube-retry';
import { createOrExisting } from './guarded-calls';
import { failureOf } from './kube-errors';

/**
 * Small records kpm keeps in the cluster (e.g. a restart in progress, so a redelivered restart
 * resumes after a crash): creator-labelled ConfigMaps, listed and deleted only with that label.
 */
export class ConfigMapGateway {
  constructor(
    private readonly core: CoreApi,
    private readonly labels: KpmLabels,
    private readonly retry: KubeRetryOptions = {},
  ) {}

  /** Creates the record; an existing one of the same name is returned instead. */
  async create(namespace: string, configMap: V1ConfigMap): Promise<V1ConfigMap> {
    this.labels.requireOurs('config maps', configMap);
    const name = configMap.metadata!.name!;
    return createOrExisting(
      () => this.core.createNamespacedConfigMap({ namespace, body: configMap }),
      () => withKubeRetry(() => this.core.readNamespacedConfigMap({ namespace, name }), this.retry),
      this.retry,
    );
  }

  /** kpm's records matching the extra label equalities, in every namespace. */
  async list(extra: Record<string, string>): Promise<V1ConfigMap[]> {
    const labelSelector = this.labels.creatorSelector(extra);
    const list = await withKubeRetry(
      () => this.core.listConfigMapForAllNamespaces({ labelSelector }),
      this.retry,
    );
    return list.items;
  }

  /** Deletes a record of kpm's; gone already is fine. */
  async delete(configMap: V1ConfigMap): Promise<void> {
    const { namespace, name } = configMap.metadata ?? {};
    if (!namespace || !name || !this.labels.isOurs(configMap.metadata?.labels)) return;
    try {
      await withKubeRetry(
        () => this.core.deleteNamespacedConfigMap({ namespace, name }),
        this.retry,
      );
    } catch (error) {
      if (failureOf(error).kind !== 'not-found') throw error;
    }
  }
}
