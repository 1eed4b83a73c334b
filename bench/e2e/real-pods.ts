import { EventEmitter } from 'node:events';
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { LastingPodWatch } from './lasting-watch';

/** What a watch saw of one pod on the real node, in this machine's clock (ms since the epoch). */
export interface PodSeen {
  namespace: string;
  name: string;
  uid: string;
  /** First event with every container running. */
  runningAtMs?: number;
  /** First event with every container terminated (the kubelet's status report of the exit). */
  exitedAtMs?: number;
  /** The latest container's `finishedAt` as the kubelet wrote it (whole seconds). */
  finishedAtMs?: number;
  goneAtMs?: number;
}

function allContainers(pod: V1Pod, state: 'running' | 'terminated'): boolean {
  const statuses = pod.status?.containerStatuses ?? [];
  return statuses.length > 0 && statuses.every((s) => s.state?.[state] !== undefined);
}

function finishedAt(pod: V1Pod): number | undefined {
  const times = (pod.status?.containerStatuses ?? []).map((s) => s.state?.terminated?.finishedAt);
  if (times.some((t) => t === undefined)) return undefined;
  return Math.max(...times.map((t) => new Date(t as unknown as string).getTime()));
}

/**
 * One watch on every pod of a node: when each pod of the namespaces asked about was first seen
 * with all its containers running, exited, and gone. kpm's pods and the raw ones are timed by the
 * same watch, so neither side's numbers carry a different observer.
 */
export class NodePods {
  private readonly pods = new Map<string, PodSeen>();
  private readonly changed = new EventEmitter().setMaxListeners(0);
  private watch?: LastingPodWatch;

  constructor(
    private readonly kubeconfig: KubeConfig,
    private readonly node: string,
  ) {}

  async start(): Promise<this> {
    this.watch = await new LastingPodWatch(
      this.kubeconfig,
      '/api/v1/pods',
      { fieldSelector: `spec.nodeName=${this.node}` },
      (type, pod) => this.see(type, pod),
    ).start();
    return this;
  }

  private see(type: string, pod: V1Pod): void {
    const now = Date.now();
    const { uid, name, namespace } = pod.metadata ?? {};
    if (!uid || !name || !namespace) return;
    const seen = this.pods.get(uid) ?? { namespace, name, uid };
    this.pods.set(uid, seen);
    if (seen.runningAtMs === undefined && allContainers(pod, 'running')) seen.runningAtMs = now;
    if (seen.exitedAtMs === undefined && allContainers(pod, 'terminated')) {
      seen.exitedAtMs = now;
      seen.finishedAtMs = finishedAt(pod);
    }
    if (type === 'DELETED') seen.goneAtMs = now;
    this.changed.emit('pod');
  }

  of(namespace: string): PodSeen[] {
    return [...this.pods.values()].filter((p) => p.namespace === namespace);
  }

  /** Resolves with the namespace's pods once `n` of them satisfy `done`. */
  until(
    namespace: string,
    n: number,
    done: (pod: PodSeen) => boolean,
    timeoutMs: number,
  ): Promise<PodSeen[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const pods = this.of(namespace).filter(done);
        if (pods.length < n) return;
        finish();
        resolve(pods);
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`${namespace}: ${n} pods not within ${timeoutMs} ms`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.changed.off('pod', check);
      };
      this.changed.on('pod', check);
      check();
    });
  }

  stop(): void {
    this.watch?.stop();
  }
}
