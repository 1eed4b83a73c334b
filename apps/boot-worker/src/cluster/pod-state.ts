/**
 * What a pod's status says about its process. Whether it ended is libs/kube's `podEnding`, the
 * rule the watcher records terminations by, with the watcher's fatal waiting reasons and image-pull
 * grace (`watcher.*`), so both services agree on what has ended.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { Clock } from '@kpm/common';
import type { KpmSettings } from '@kpm/config';
import { hasPodEnded, podEnding, type ImagePullGrace, type PodEnding } from '@kpm/kube';

/** Running and not being deleted: a process whose name a new boot may not take. */
export function isAlive(
  pod: V1Pod,
  fatalReasons: ReadonlySet<string>,
  imagePull?: ImagePullGrace,
): boolean {
  return !pod.metadata?.deletionTimestamp && !hasPodEnded(pod, fatalReasons, imagePull);
}

export function isReady(pod: V1Pod | undefined): boolean {
  return (pod?.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The ending rule under the settings, as of the clock's now. */
export class EndingRule {
  private readonly fatalReasons: ReadonlySet<string>;
  private readonly imagePullGraceSeconds: number;

  constructor(
    { watcher }: Pick<KpmSettings, 'watcher'>,
    private readonly clock: Clock,
  ) {
    this.fatalReasons = new Set(watcher.fatalWaitingReasons);
    this.imagePullGraceSeconds = watcher.imagePullGraceSeconds;
  }

  ending(pod: V1Pod | undefined): PodEnding {
    return podEnding({ pod, fatalReasons: this.fatalReasons, imagePull: this.imagePull() });
  }

  hasEnded(pod: V1Pod | undefined): boolean {
    return this.ending(pod).ended;
  }

  isAlive(pod: V1Pod): boolean {
    return isAlive(pod, this.fatalReasons, this.imagePull());
  }

  private imagePull(): ImagePullGrace {
    return { graceSeconds: this.imagePullGraceSeconds, now: new Date(this.clock.now()) };
  }
}
