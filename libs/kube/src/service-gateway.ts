import type { V1OwnerReference, V1Service } from '@kubernetes/client-node';
import { PatchType, type CoreApi } from './http/kube-core-api';
import type { KpmLabels } from './kpm-labels';
import { withKubeRetry, type KubeRetryOptions } from './kube-retry';
import { createOrExisting } from './guarded-calls';
import { failureOf } from './kube-errors';

/**
 * The Service of each process (headless, or drunc's NodePort), owner-referenced to its pod so
 * Kubernetes' garbage collector removes it with the pod. A restarted process reuses the name: its existing Service
 * is handed over to the new pod instead of being created twice.
 */
export class ServiceGateway {
  constructor(
    private readonly core: CoreApi,
    private readonly labels: KpmLabels,
    private readonly retry: KubeRetryOptions = {},
  ) {}

  /** Creates the Service, or re-points an existing one of kpm's at `service`'s owner. */
  async ensure(namespace: string, service: V1Service): Promise<V1Service> {
    this.labels.requireOurs('services', service);
    const name = service.metadata!.name!;
    // A NodePort Service already there is read first: creating it again is refused for its
    // allocated port (422) before its name (409).
    const present =
      service.spec?.type === 'NodePort' ? await this.read(namespace, name) : undefined;
    // A Service created here passes the checks below as it is: ours, with these owners.
    const existing =
      present ??
      (await createOrExisting(
        () => this.core.createNamespacedService({ namespace, body: service }),
        () => withKubeRetry(() => this.core.readNamespacedService({ namespace, name }), this.retry),
        this.retry,
      ));
    if (!this.labels.isOurs(existing.metadata?.labels)) {
      throw new Error(`service ${namespace}/${name} exists and was not created by kpm`);
    }
    const owners = service.metadata?.ownerReferences ?? [];
    if (sameOwners(existing.metadata?.ownerReferences, owners)) return existing;
    return withKubeRetry(
      () =>
        this.core.patchNamespacedService(
          { namespace, name, body: { metadata: { ownerReferences: owners } } },
          PatchType.merge,
        ),
      this.retry,
    );
  }

  /** The Service of kpm's of that name, or undefined. */
  async read(namespace: string, name: string): Promise<V1Service | undefined> {
    try {
      const service = await withKubeRetry(
        () => this.core.readNamespacedService({ namespace, name }),
        this.retry,
      );
      return this.labels.isOurs(service.metadata?.labels) ? service : undefined;
    } catch (error) {
      if (failureOf(error).kind === 'not-found') return undefined;
      throw error;
    }
  }

  /** The Service (`namespace/name`), in any namespace, whose ports hold `nodePort`. */
  async nodePortHolder(nodePort: number): Promise<string | undefined> {
    const list = await withKubeRetry(() => this.core.listServiceForAllNamespaces(), this.retry);
    const holder = list.items.find((service) =>
      (service.spec?.ports ?? []).some((port) => port.nodePort === nodePort),
    );
    return holder && `${holder.metadata?.namespace}/${holder.metadata?.name}`;
  }
}

function sameOwners(a: V1OwnerReference[] | undefined, b: V1OwnerReference[]): boolean {
  const uids = (refs: V1OwnerReference[] | undefined) => (refs ?? []).map((r) => r.uid).join(',');
  return uids(a) === uids(b);
}
