import type { V1Pod } from '@kubernetes/client-node';

interface ReleaseListener {
  /** `done` false: the release failed and is owed (retried on the pod's next event or re-list). */
  finished(pod: V1Pod, done: boolean, error?: unknown): void;
}

/**
 * Removes termination-record finalizers with bounded concurrency, so a thousand pods ending at
 * once neither queue behind one another nor flood the API server.
 */
export class FinalizerReleaser {
  private readonly queue: V1Pod[] = [];
  private active = 0;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly release: (pod: V1Pod) => Promise<unknown>,
    private readonly concurrency: number,
    private readonly listener: ReleaseListener,
  ) {}

  get pending(): number {
    return this.queue.length + this.active;
  }

  enqueue(pod: V1Pod): void {
    if (this.stopped) return;
    this.queue.push(pod);
    this.pump();
  }

  /** Resolves when nothing is queued or in flight. */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops what is queued and waits for the releases in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.length = 0;
    await this.idle();
  }

  private pump(): void {
    while (this.active < this.concurrency && this.queue.length > 0) {
      const pod = this.queue.shift()!;
      this.active++;
      this.release(pod)
        .then(
          () => this.listener.finished(pod, true),
          (error: unknown) => this.listener.finished(pod, false, error),
        )
        .finally(() => {
          this.active--;
          this.pump();
          if (this.pending === 0) this.idleWaiters.splice(0).forEach((wake) => wake());
        });
    }
  }
}
