/**
 * What the tracker keeps of a pod between its events: only what the guarded finalizer patch and a
 * re-list's PodDeleted need (name, namespace, uid, the creator label, the finalizer list, the
 * phase, whether its deletion was asked), and its node, judged again when the node is lost. A pod as the API server returns it (spec, managed fields, statuses, the process-spec
 * annotation) is several KB; 100,000 of them would not fit the watcher's memory budget.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { KpmLabels } from '@kpm/kube';

export function trackedPod(pod: V1Pod, labels: KpmLabels): V1Pod {
  const meta = pod.metadata ?? {};
  const creator = meta.labels?.[labels.creator];
  return {
    metadata: {
      uid: meta.uid,
      namespace: meta.namespace,
      name: meta.name,
      ...(creator === undefined ? {} : { labels: { [labels.creator]: creator } }),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ...(meta.deletionTimestamp ? { deletionTimestamp: meta.deletionTimestamp } : {}),
    },
    ...(pod.spec?.nodeName ? { spec: { nodeName: pod.spec.nodeName, containers: [] } } : {}),
    status: { phase: pod.status?.phase },
  };
}
