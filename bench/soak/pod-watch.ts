import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { LastingPodWatch } from '../e2e/lasting-watch';

/** Every pod of kpm's label domain (all namespaces): when it was first seen ended, and gone. */
export class SoakPods {
  readonly endedAtMs = new Map<string, number>();
  readonly gone = new Set<string>();
  readonly seen = new Set<string>();
  private watch?: LastingPodWatch;

  constructor(
    private readonly kubeconfig: KubeConfig,
    private readonly creatorSelector: string,
  ) {}

  async start(): Promise<this> {
    this.watch = await new LastingPodWatch(
      this.kubeconfig,
      '/api/v1/pods',
      { labelSelector: this.creatorSelector },
      (type, pod) => this.see(type, pod),
    ).start();
    return this;
  }

  private see(type: string, pod: V1Pod): void {
    const uid = pod.metadata?.uid;
    if (!uid) return;
    this.seen.add(uid);
    const phase = pod.status?.phase;
    const statuses = pod.status?.containerStatuses ?? [];
    const exited = statuses.length > 0 && statuses.every((s) => s.state?.terminated);
    if ((phase === 'Failed' || phase === 'Succeeded' || exited) && !this.endedAtMs.has(uid)) {
      this.endedAtMs.set(uid, Date.now());
    }
    if (type === 'DELETED') this.gone.add(uid);
  }

  stop(): void {
    this.watch?.stop();
  }
}
