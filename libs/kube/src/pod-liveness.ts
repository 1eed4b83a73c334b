/**
 * drunc's `is_alive`, asked of the cluster rather than of a table: a process is alive when its
 * pod exists and its phase is Running. Pods are matched by kpm's uuid label, never by name, so a
 * newer pod that took the name of an ended process does not make that process alive.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { KpmLabels } from './kpm-labels';

export interface PodLiveness {
  alive: boolean;
  /** The pod's phase (`Pending`, `Running`, `Succeeded`, `Failed`, `Unknown`), or `Gone`. */
  phase: string;
}

export function podLiveness(pod: V1Pod | undefined): PodLiveness {
  if (!pod) return { alive: false, phase: 'Gone' };
  const phase = pod.status?.phase ?? 'Unknown';
  return { alive: phase === 'Running', phase };
}

/** The liveness of each of `uuids`, from the pods found (a uuid without a pod is Gone). */
export function livenessByUuid(
  uuids: readonly string[],
  pods: readonly V1Pod[],
  labels: KpmLabels,
): Map<string, PodLiveness> {
  const byUuid = new Map<string, V1Pod>();
  for (const pod of pods) {
    const uuid = pod.metadata?.labels?.[labels.uuid];
    if (uuid) byUuid.set(uuid, pod);
  }
  return new Map(uuids.map((uuid) => [uuid, podLiveness(byUuid.get(uuid))]));
}
