/**
 * What a pod's status says about its process, from the pod object alone (watch events deliver
 * plain JSON, list calls typed objects: only fields present in both are read).
 */
import type { V1Pod } from '@kubernetes/client-node';
import { DEFAULT_FATAL_WAITING_REASONS } from '@kpm/config';

/**
 * Waiting reasons after which the container never starts (docs/design.md §6.5); the configured list
 * is the watcher's (`watcher.fatalWaitingReasons`), so both services agree on what has ended.
 */
export type FatalReasons = ReadonlySet<string>;
const DEFAULT_FATAL: FatalReasons = new Set(DEFAULT_FATAL_WAITING_REASONS);

/** The fatal waiting reason of the first container stuck on one, if any. */
export function fatalWaitingReason(
  pod: V1Pod,
  fatal: FatalReasons = DEFAULT_FATAL,
): string | undefined {
  const statuses = [
    ...(pod.status?.initContainerStatuses ?? []),
    ...(pod.status?.containerStatuses ?? []),
  ];
  for (const status of statuses) {
    const reason = status.state?.waiting?.reason;
    if (reason && fatal.has(reason)) return reason;
  }
  return undefined;
}

function anyRunning(pod: V1Pod): boolean {
  return (pod.status?.containerStatuses ?? []).some((s) => s.state?.running !== undefined);
}

function allTerminated(pod: V1Pod): boolean {
  const statuses = pod.status?.containerStatuses ?? [];
  return statuses.length > 0 && statuses.every((s) => s.state?.terminated !== undefined);
}

/**
 * The process has ended: the pod is gone, its phase is final, every container terminated, a
 * fatal waiting reason holds it, or it is being deleted with nothing running. kpm's finalizer
 * keeps such a pod's object until the watcher recorded the end, so "gone" alone would wait for
 * the watcher.
 */
export function hasEnded(pod: V1Pod | undefined, fatal: FatalReasons = DEFAULT_FATAL): boolean {
  if (!pod) return true;
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return true;
  if (allTerminated(pod) || fatalWaitingReason(pod, fatal) !== undefined) return true;
  return Boolean(pod.metadata?.deletionTimestamp) && !anyRunning(pod);
}

/** Running and not being deleted: a process whose name a new boot may not take. */
export function isAlive(pod: V1Pod, fatal: FatalReasons = DEFAULT_FATAL): boolean {
  return !pod.metadata?.deletionTimestamp && !hasEnded(pod, fatal);
}

export function isReady(pod: V1Pod | undefined): boolean {
  return (pod?.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}
