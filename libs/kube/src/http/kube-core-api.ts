/**
 * The calls of the core/v1 and coordination/v1 APIs kpm makes, named and shaped as client-node's
 * CoreV1Api and CoordinationV1Api name them (one parameter object; `_continue` for the list
 * token), so the gateways read the same whichever client is behind them. Objects are the API
 * server's JSON: timestamps are strings, as in a watch event.
 */
import type {
  V1ConfigMap,
  V1ConfigMapList,
  V1DeleteOptions,
  V1Lease,
  V1Namespace,
  V1NamespaceList,
  V1NodeList,
  V1Pod,
  V1PodList,
  V1Service,
  V1ServiceList,
} from '@kubernetes/client-node';
import type { KubeHttp, Query } from './kube-http';

/** The content types of a patch body. */
export const PatchType = {
  /** RFC 7386: the fields given replace those of the object. */
  merge: 'application/merge-patch+json',
  /** RFC 6902: a list of operations (`test` guards them). */
  json: 'application/json-patch+json',
} as const;
export type PatchType = (typeof PatchType)[keyof typeof PatchType];

interface Named {
  name: string;
}
interface InNamespace {
  namespace: string;
}
interface Selection {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  _continue?: string;
  resourceVersion?: string;
}
interface Deletion {
  gracePeriodSeconds?: number;
  body?: V1DeleteOptions;
}

/** List metadata as the API writes it (`continue`), also under client-node's name `_continue`. */
interface ListMeta {
  metadata?: { resourceVersion?: string; continue?: string; _continue?: string };
}

const core = '/api/v1';
const ns = (namespace: string) => `${core}/namespaces/${encodeURIComponent(namespace)}`;
const one = (collection: string, name: string) => `${collection}/${encodeURIComponent(name)}`;

function selection({ labelSelector, fieldSelector, limit, _continue, resourceVersion }: Selection) {
  return { labelSelector, fieldSelector, limit, continue: _continue, resourceVersion } as Query;
}

export class KubeCoreApi {
  constructor(private readonly http: KubeHttp) {}

  // Pods
  listNamespacedPod(p: InNamespace & Selection): Promise<V1PodList> {
    return this.list(`${ns(p.namespace)}/pods`, p);
  }
  listPodForAllNamespaces(p: Selection = {}): Promise<V1PodList> {
    return this.list(`${core}/pods`, p);
  }
  readNamespacedPod(p: InNamespace & Named): Promise<V1Pod> {
    return this.http.request('GET', one(`${ns(p.namespace)}/pods`, p.name));
  }
  createNamespacedPod(p: InNamespace & { body: V1Pod }): Promise<V1Pod> {
    return this.http.request('POST', `${ns(p.namespace)}/pods`, { body: p.body });
  }
  deleteNamespacedPod(p: InNamespace & Named & Deletion): Promise<V1Pod> {
    return this.remove(one(`${ns(p.namespace)}/pods`, p.name), p);
  }
  patchNamespacedPod(p: InNamespace & Named & { body: unknown }, type: PatchType): Promise<V1Pod> {
    return this.patch(one(`${ns(p.namespace)}/pods`, p.name), p.body, type);
  }
  readNamespacedPodLog(
    p: InNamespace & Named & { tailLines?: number; limitBytes?: number; container?: string },
  ): Promise<string> {
    const { tailLines, limitBytes, container } = p;
    const path = `${one(`${ns(p.namespace)}/pods`, p.name)}/log`;
    return this.http.request('GET', path, {
      query: { tailLines, limitBytes, container },
      text: true,
    });
  }

  // Services
  createNamespacedService(p: InNamespace & { body: V1Service }): Promise<V1Service> {
    return this.http.request('POST', `${ns(p.namespace)}/services`, { body: p.body });
  }
  readNamespacedService(p: InNamespace & Named): Promise<V1Service> {
    return this.http.request('GET', one(`${ns(p.namespace)}/services`, p.name));
  }
  patchNamespacedService(
    p: InNamespace & Named & { body: unknown },
    type: PatchType,
  ): Promise<V1Service> {
    return this.patch(one(`${ns(p.namespace)}/services`, p.name), p.body, type);
  }
  listServiceForAllNamespaces(p: Selection = {}): Promise<V1ServiceList> {
    return this.list(`${core}/services`, p);
  }

  // Namespaces and nodes
  createNamespace(p: { body: V1Namespace }): Promise<V1Namespace> {
    return this.http.request('POST', `${core}/namespaces`, { body: p.body });
  }
  readNamespace(p: Named): Promise<V1Namespace> {
    return this.http.request('GET', ns(p.name));
  }
  listNamespace(p: Selection = {}): Promise<V1NamespaceList> {
    return this.list(`${core}/namespaces`, p);
  }
  patchNamespace(p: Named & { body: unknown }, type: PatchType): Promise<V1Namespace> {
    return this.patch(ns(p.name), p.body, type);
  }
  deleteNamespace(p: Named & Deletion): Promise<unknown> {
    return this.remove(ns(p.name), p);
  }
  listNode(p: Selection = {}): Promise<V1NodeList> {
    return this.list(`${core}/nodes`, p);
  }

  // ConfigMaps
  createNamespacedConfigMap(p: InNamespace & { body: V1ConfigMap }): Promise<V1ConfigMap> {
    return this.http.request('POST', `${ns(p.namespace)}/configmaps`, { body: p.body });
  }
  readNamespacedConfigMap(p: InNamespace & Named): Promise<V1ConfigMap> {
    return this.http.request('GET', one(`${ns(p.namespace)}/configmaps`, p.name));
  }
  listConfigMapForAllNamespaces(p: Selection = {}): Promise<V1ConfigMapList> {
    return this.list(`${core}/configmaps`, p);
  }
  deleteNamespacedConfigMap(p: InNamespace & Named & Deletion): Promise<unknown> {
    return this.remove(one(`${ns(p.namespace)}/configmaps`, p.name), p);
  }

  private async list<T extends ListMeta>(path: string, p: Selection): Promise<T> {
    const list = await this.http.request<T>('GET', path, { query: selection(p) });
    if (list.metadata?.continue) list.metadata._continue = list.metadata.continue;
    return list;
  }

  private remove<T>(path: string, { gracePeriodSeconds, body }: Deletion): Promise<T> {
    return this.http.request('DELETE', path, { query: { gracePeriodSeconds }, body });
  }

  private patch<T>(path: string, body: unknown, contentType: PatchType): Promise<T> {
    return this.http.request('PATCH', path, { body, contentType });
  }
}

const leases = (namespace: string) =>
  `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;

/** A Lease as the API server writes it: its times are MicroTime strings. */
export type Lease = Omit<V1Lease, 'spec'> & {
  spec?: Omit<NonNullable<V1Lease['spec']>, 'acquireTime' | 'renewTime'> & {
    acquireTime?: string;
    renewTime?: string;
  };
};

export class KubeCoordinationApi {
  constructor(private readonly http: KubeHttp) {}

  readNamespacedLease(p: InNamespace & Named): Promise<Lease> {
    return this.http.request('GET', one(leases(p.namespace), p.name));
  }
  createNamespacedLease(p: InNamespace & { body: Lease }): Promise<Lease> {
    return this.http.request('POST', leases(p.namespace), { body: p.body });
  }
  replaceNamespacedLease(p: InNamespace & Named & { body: Lease }): Promise<Lease> {
    return this.http.request('PUT', one(leases(p.namespace), p.name), { body: p.body });
  }
}

/** A MicroTime as the API server writes it: RFC 3339 with six fractional digits, in UTC. */
export function microTime(at: Date = new Date()): string {
  return at.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** What the gateways call (tests give them fakes of it). */
export type CoreApi = Pick<KubeCoreApi, keyof KubeCoreApi>;
export type CoordinationApi = Pick<KubeCoordinationApi, keyof KubeCoordinationApi>;
