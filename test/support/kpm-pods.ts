import { eventually } from '@kpm/common';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
} from '@kubernetes/client-node';
import { KpmLabels } from '@kpm/kube';
import { stackEnv } from './stack-env';

export interface LabPodOptions {
  uuid?: string;
  /** sim.kpm.daq/* annotations (exit-code, run-ms, stop-ms, graceful). */
  sim?: Record<string, string>;
  image?: string;
  /** Without kpm's termination-record finalizer (a pod the watcher cannot hold). */
  withoutFinalizer?: boolean;
  /** Never scheduled: a node selector no node matches, so the pod stays Pending. */
  unschedulable?: boolean;
}

/**
 * kpm-labelled pods made directly through the API, under a label domain of the test's own, so no
 * other suite's watcher sees them and this suite's watcher sees no one else's pods.
 */
export class PodLab {
  readonly labels: KpmLabels;
  readonly core: CoreV1Api;
  readonly kubeconfig: KubeConfig;

  private constructor(
    readonly domain: string,
    readonly namespace: string,
  ) {
    this.labels = new KpmLabels(domain);
    this.kubeconfig = new KubeConfig();
    const path = stackEnv().kubeconfig;
    if (path) this.kubeconfig.loadFromFile(path);
    else this.kubeconfig.loadFromDefault();
    this.core = this.kubeconfig.makeApiClient(CoreV1Api);
  }

  /** A lab with a fresh label domain and namespace (the namespace is the session). */
  static async open(label: string): Promise<PodLab> {
    const suffix = randomBytes(3).toString('hex');
    const lab = new PodLab(`${label}-${suffix}.test.daq`, `${label}-${suffix}`);
    await lab.core.createNamespace({
      body: { metadata: { name: lab.namespace, labels: { [lab.labels.creator]: 'kpm' } } },
    });
    return lab;
  }

  get session(): string {
    return this.namespace;
  }

  pod(name: string, options: LabPodOptions = {}): V1Pod {
    const { labels } = this;
    return {
      metadata: {
        name,
        namespace: this.namespace,
        labels: {
          [labels.creator]: 'kpm',
          [labels.uuid]: options.uuid ?? randomUUID(),
          [labels.session]: this.session,
          [labels.user]: 'daq-test',
          [labels.role]: 'application',
          app: name,
        },
        annotations: options.sim,
        finalizers: options.withoutFinalizer ? undefined : [labels.terminationFinalizer],
      },
      spec: {
        ...(options.unschedulable
          ? { nodeSelector: { 'kpm.test/no-such-node': 'true' } }
          : { nodeName: `kpm-node-${1 + Math.floor(Math.random() * 3)}` }),
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 30,
        containers: [
          {
            name,
            image: options.image ?? 'kpm.invalid/daq-app:1.0',
            command: ['/bin/bash', '-c', 'exec daq_application'],
          },
        ],
      },
    };
  }

  async create(name: string, options: LabPodOptions = {}): Promise<V1Pod> {
    return this.core.createNamespacedPod({
      namespace: this.namespace,
      body: this.pod(name, options),
    });
  }

  /** Creates many pods, `parallel` requests at a time. */
  async createMany(
    names: readonly string[],
    options: LabPodOptions = {},
    parallel = 16,
  ): Promise<V1Pod[]> {
    const created: V1Pod[] = new Array<V1Pod>(names.length);
    let next = 0;
    const worker = async () => {
      while (next < names.length) {
        const index = next++;
        created[index] = await this.create(names[index], options);
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, names.length) }, worker));
    return created;
  }

  async read(name: string): Promise<V1Pod | undefined> {
    try {
      return await this.core.readNamespacedPod({ namespace: this.namespace, name });
    } catch (error) {
      if ((error as { code?: number }).code === 404) return undefined;
      throw error;
    }
  }

  async delete(name: string, gracePeriodSeconds: number): Promise<void> {
    await this.core.deleteNamespacedPod({ namespace: this.namespace, name, gracePeriodSeconds });
  }

  /** Polls (with a deadline) until `done` holds for the pod (undefined once it is gone). */
  async waitForPod(
    name: string,
    done: (pod: V1Pod | undefined) => boolean,
    timeoutMs = 30_000,
  ): Promise<V1Pod | undefined> {
    const found = await eventually(
      async () => {
        const pod = await this.read(name);
        if (done(pod)) return { pod };
        const { phase } = pod?.status ?? {};
        throw new Error(`last: ${phase} finalizers ${JSON.stringify(pod?.metadata?.finalizers)}`);
      },
      { what: `pod ${name}'s condition`, timeoutMs, everyMs: 200 },
    );
    return found.pod;
  }

  holdsFinalizer(pod: V1Pod | undefined): boolean {
    return pod?.metadata?.finalizers?.includes(this.labels.terminationFinalizer) ?? false;
  }

  /** Removes the termination-record finalizer behind the watcher's back (as an operator might). */
  async dropFinalizer(name: string): Promise<void> {
    await this.core.patchNamespacedPod(
      { namespace: this.namespace, name, body: { metadata: { finalizers: null } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }

  /** Releases every pod the test left behind and deletes the namespace. */
  async close(): Promise<void> {
    const pods = await this.core
      .listNamespacedPod({ namespace: this.namespace })
      .catch(() => undefined);
    for (const pod of pods?.items ?? []) {
      if (pod.metadata?.finalizers?.length) {
        await this.dropFinalizer(pod.metadata.name!).catch(() => undefined);
      }
    }
    await this.core
      .deleteCollectionNamespacedPod({ namespace: this.namespace, gracePeriodSeconds: 0 })
      .catch(() => undefined);
    await this.core.deleteNamespace({ name: this.namespace }).catch(() => undefined);
  }
}
