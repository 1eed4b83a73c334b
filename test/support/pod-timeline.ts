import { type KubeConfig, Watch, type V1Pod } from '@kubernetes/client-node';

/** One change of a pod as a watch delivered it, with when the test saw it. */
export interface PodMoment {
  atMs: number;
  type: string;
  name: string;
  phase?: string;
  ready: boolean;
  deleting: boolean;
  exitCode?: number;
}

/**
 * Every change of a namespace's pods, in the order of one watch stream (the API server's order),
 * so a suite can say which happened first: a pod turning Ready, another being created, a third
 * ending — the boot order and the shutdown order as they really happened.
 */
export class PodTimeline {
  readonly moments: PodMoment[] = [];
  private controller?: AbortController;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly kubeconfig: KubeConfig,
    private readonly namespace: string,
  ) {}

  /** Starts watching; the namespace need not exist yet. */
  async start(): Promise<this> {
    this.controller = await new Watch(this.kubeconfig).watch(
      `/api/v1/namespaces/${this.namespace}/pods`,
      {},
      (type: string, pod: V1Pod) => {
        this.moments.push(momentOf(type, pod));
        for (const wake of this.waiters) wake();
      },
      () => undefined,
    );
    return this;
  }

  stop(): void {
    this.controller?.abort();
  }

  /**
   * The index of the first moment at or after `from` that matches, as soon as the watch delivers
   * it; rejects at the timeout naming what was awaited.
   */
  waitFor(
    what: string,
    predicate: (moment: PodMoment) => boolean,
    from = 0,
    timeoutMs = 60_000,
  ): Promise<number> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const index = this.moments.findIndex((m, i) => i >= from && predicate(m));
        if (index < 0) return false;
        done();
        resolve(index);
        return true;
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${what} not seen within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Index of the first moment that matches, or -1. */
  first(predicate: (moment: PodMoment) => boolean): number {
    return this.moments.findIndex(predicate);
  }

  /** Index of the first moment `name` was Ready; -1 if never. */
  readyAt(name: string): number {
    return this.first((m) => m.name === name && m.ready);
  }

  /** Index of the moment `name` was created; -1 if never seen. */
  createdAt(name: string): number {
    return this.first((m) => m.name === name && m.type === 'ADDED');
  }

  /** Index of the first moment `name`'s container had terminated; -1 if never. */
  endedAt(name: string): number {
    return this.first((m) => m.name === name && m.exitCode !== undefined);
  }
}

function momentOf(type: string, pod: V1Pod): PodMoment {
  const conditions = pod.status?.conditions ?? [];
  return {
    atMs: Date.now(),
    type,
    name: pod.metadata?.name ?? '',
    phase: pod.status?.phase,
    ready: conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
    deleting: Boolean(pod.metadata?.deletionTimestamp),
    exitCode: pod.status?.containerStatuses?.[0]?.state?.terminated?.exitCode,
  };
}
