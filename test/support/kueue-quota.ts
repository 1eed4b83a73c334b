import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';

const KUEUE = { group: 'kueue.x-k8s.io', version: 'v1beta2' };

export interface KueueQuotaSpec {
  /** The ResourceFlavor's and the ClusterQueue's name. */
  name: string;
  cpu: string;
  memory: string;
  /** The flavor's node labels: Kueue adds them to an admitted pod's node selector. */
  nodeLabels?: Record<string, string>;
}

/**
 * A ClusterQueue of one ResourceFlavor, both named `name`, admitting from every namespace up to
 * `cpu` and `memory`: the cluster admin's part of kpm's Kueue pod groups, for suites and benches
 * on the stack's Kueue (`kpm stack up --kueue`).
 */
export class KueueQuota {
  readonly api: CustomObjectsApi;

  private constructor(
    kubeconfig: KubeConfig,
    readonly name: string,
  ) {
    this.api = kubeconfig.makeApiClient(CustomObjectsApi);
  }

  static async create(kubeconfig: KubeConfig, spec: KueueQuotaSpec): Promise<KueueQuota> {
    const quota = new KueueQuota(kubeconfig, spec.name);
    await quota.api.createClusterCustomObject({
      ...KUEUE,
      plural: 'resourceflavors',
      body: {
        apiVersion: 'kueue.x-k8s.io/v1beta2',
        kind: 'ResourceFlavor',
        metadata: { name: spec.name },
        ...(spec.nodeLabels && { spec: { nodeLabels: spec.nodeLabels } }),
      },
    });
    const resources = [
      { name: 'cpu', nominalQuota: spec.cpu },
      { name: 'memory', nominalQuota: spec.memory },
    ];
    await quota.api.createClusterCustomObject({
      ...KUEUE,
      plural: 'clusterqueues',
      body: {
        apiVersion: 'kueue.x-k8s.io/v1beta2',
        kind: 'ClusterQueue',
        metadata: { name: spec.name },
        spec: {
          namespaceSelector: {},
          resourceGroups: [
            { coveredResources: ['cpu', 'memory'], flavors: [{ name: spec.name, resources }] },
          ],
        },
      },
    });
    return quota;
  }

  /** What the ClusterQueue reserves of `resource` now, as Kueue writes its status. */
  async reserved(resource: string): Promise<string | undefined> {
    const cq = (await this.api.getClusterCustomObject({
      ...KUEUE,
      plural: 'clusterqueues',
      name: this.name,
    })) as {
      status?: { flavorsReservation?: { resources: { name: string; total: string }[] }[] };
    };
    return cq.status?.flavorsReservation?.[0]?.resources.find((r) => r.name === resource)?.total;
  }

  /** A Workload of a namespace, or undefined when there is none. */
  async workload(
    namespace: string,
    name: string,
  ): Promise<{ status?: { conditions?: { type: string; status: string }[] } } | undefined> {
    return (await this.api
      .getNamespacedCustomObject({ ...KUEUE, namespace, plural: 'workloads', name })
      .catch(() => undefined)) as
      { status?: { conditions?: { type: string; status: string }[] } } | undefined;
  }

  /** The ClusterQueue, then its flavor (Kueue lets them go once nothing uses them). */
  async delete(): Promise<void> {
    for (const plural of ['clusterqueues', 'resourceflavors'])
      await this.api
        .deleteClusterCustomObject({ ...KUEUE, plural, name: this.name })
        .catch(() => undefined);
  }
}
