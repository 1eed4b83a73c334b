/**
 * The calls of Kueue's API (kueue.x-k8s.io/v1beta2) kpm makes: the LocalQueue of a session's
 * namespace and the Workload of a pod group. Objects are the API server's JSON.
 */
import type { KubeHttp } from './kube-http';

export const KUEUE_API = '/apis/kueue.x-k8s.io/v1beta2';

/** A condition as Kueue writes it on a Workload. */
export interface KueueCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface LocalQueue {
  apiVersion: string;
  kind: 'LocalQueue';
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  spec: { clusterQueue: string };
}

export interface Workload {
  metadata?: { name?: string; namespace?: string };
  status?: { conditions?: KueueCondition[] };
}

const inNamespace = (namespace: string, plural: string) =>
  `${KUEUE_API}/namespaces/${encodeURIComponent(namespace)}/${plural}`;

export class KubeKueueApi {
  constructor(private readonly http: KubeHttp) {}

  createNamespacedLocalQueue(p: { namespace: string; body: LocalQueue }): Promise<LocalQueue> {
    return this.http.request('POST', inNamespace(p.namespace, 'localqueues'), { body: p.body });
  }

  readNamespacedLocalQueue(p: { namespace: string; name: string }): Promise<LocalQueue> {
    const path = `${inNamespace(p.namespace, 'localqueues')}/${encodeURIComponent(p.name)}`;
    return this.http.request('GET', path);
  }

  readNamespacedWorkload(p: { namespace: string; name: string }): Promise<Workload> {
    const path = `${inNamespace(p.namespace, 'workloads')}/${encodeURIComponent(p.name)}`;
    return this.http.request('GET', path);
  }
}

/** What the gateways call (tests give them fakes of it). */
export type KueueApi = Pick<KubeKueueApi, keyof KubeKueueApi>;
