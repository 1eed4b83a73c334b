import { CoreV1Api, type KubeConfig, Watch, type V1Pod } from '@kubernetes/client-node';
import { DEFAULT_FATAL_WAITING_REASONS } from '@kpm/config';
import { createKubeApis, KpmLabels, PodGateway, hasPodEnded } from '@kpm/kube';
import { stackEnv } from './stack-env';

const FATAL_WAITING_REASONS: ReadonlySet<string> = new Set(DEFAULT_FATAL_WAITING_REASONS);

/**
 * TEST ONLY — stands in for the watcher in boot-worker suites: once a kpm pod of `domain` has
 * ended, it removes the termination-record finalizer, so deleted pods go and names become free,
 * as they do once the real watcher has recorded a termination. It publishes nothing.
 */
export class FinalizerJanitor {
  readonly released = new Set<string>();
  private readonly labels: KpmLabels;
  private readonly core: CoreV1Api;
  private readonly pods: PodGateway;
  private stopped = false;
  private abort?: AbortController;
  private loop?: Promise<void>;

  constructor(
    private readonly config: KubeConfig,
    domain: string,
  ) {
    this.labels = new KpmLabels(domain);
    this.core = config.makeApiClient(CoreV1Api);
    const { core } = createKubeApis(stackEnv().kubeconfig);
    this.pods = new PodGateway(core, this.labels, { deadlineMs: 5_000 });
  }

  start(): this {
    this.loop = this.run();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort?.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        const list = await this.core.listPodForAllNamespaces({
          labelSelector: this.labels.creatorSelector(),
        });
        await Promise.all(list.items.map((pod) => this.consider(pod)));
        await this.watch(list.metadata?.resourceVersion);
      } catch {
        // list again below
      }
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private watch(resourceVersion?: string): Promise<void> {
    return new Promise((resolve) => {
      new Watch(this.config)
        .watch(
          '/api/v1/pods',
          { labelSelector: this.labels.creatorSelector(), resourceVersion, timeoutSeconds: 60 },
          (type: string, pod: V1Pod) => {
            if (type === 'ADDED' || type === 'MODIFIED') void this.consider(pod);
          },
          () => resolve(),
        )
        .then((controller) => {
          this.abort = controller;
          if (this.stopped) controller.abort();
        })
        .catch(() => resolve());
    });
  }

  private async consider(pod: V1Pod): Promise<void> {
    if (
      !hasPodEnded(pod, FATAL_WAITING_REASONS) ||
      !pod.metadata?.finalizers?.includes(this.labels.terminationFinalizer)
    ) {
      return;
    }
    const removed = await this.pods
      .removeFinalizer(pod, this.labels.terminationFinalizer)
      .catch(() => false);
    if (removed) this.released.add(pod.metadata.uid!);
  }
}
