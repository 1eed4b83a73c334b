/**
 * What a pod's status says about its process for a boot. Whether it ended is libs/kube's
 * `podEnding`, the rule the watcher records terminations by; the fatal waiting reasons are the
 * watcher's list (`watcher.fatalWaitingReasons`), so both services agree on what has ended.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { hasPodEnded, type ImagePullGrace } from '@kpm/kube';

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
