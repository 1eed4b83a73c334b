import { Watch, type KubeConfig, type V1Pod } from '@kubernetes/client-node';

/**
 * A pod watch that outlives the API server's watch timeout: each time a watch ends it is opened
 * again from the last resourceVersion seen (from now, if that one has expired), until stopped.
 */
export class LastingPodWatch {
  private resourceVersion?: string;
  private abort?: AbortController;
  private stopped = false;

  constructor(
    private readonly kubeconfig: KubeConfig,
    private readonly path: string,
    private readonly query: Record<string, string>,
    private readonly onEvent: (type: string, pod: V1Pod) => void,
  ) {}

  async start(): Promise<this> {
    this.abort = await new Watch(this.kubeconfig).watch(
      this.path,
      {
        ...this.query,
        allowWatchBookmarks: 'true',
        ...(this.resourceVersion ? { resourceVersion: this.resourceVersion } : {}),
      },
      (type: string, pod: V1Pod) => {
        this.resourceVersion = pod.metadata?.resourceVersion ?? this.resourceVersion;
        if (type !== 'BOOKMARK' && type !== 'ERROR') this.onEvent(type, pod);
        // 410 Gone arrives as an ERROR event: start again from now.
        if (type === 'ERROR') this.resourceVersion = undefined;
      },
      (error: unknown) => void this.again(error),
    );
    return this;
  }

  private async again(error: unknown): Promise<void> {
    if (this.stopped) return;
    const why = error ? String((error as Error).message ?? error) : 'closed by the server';
    console.error(`pod watch ended (${why}): watching again from ${this.resourceVersion ?? 'now'}`);
    await this.start().catch((failed: unknown) => setTimeout(() => void this.again(failed), 1000));
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }
}
