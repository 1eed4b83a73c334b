import type { V1OwnerReference, V1Pod } from '@kubernetes/client-node';

/**
 * Objects that live and die with a process's pod (its headless and NodePort Services): owned by
 * the pod, so Kubernetes' garbage collector removes them with it.
 */
export function ownedByPod(pod: V1Pod): V1OwnerReference[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      name: pod.metadata!.name!,
      uid: pod.metadata!.uid!,
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
}
