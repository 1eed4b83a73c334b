/**
 * How long a process may stay on a lost node (docs/design.md §6.6): every DAQ pod tolerates the
 * node lifecycle's `unreachable` NoExecute taint for `nodeLostSeconds`, then Kubernetes evicts it
 * and the watcher reports it ended `NodeLost`. A toleration the placement already asked for (a
 * tainted node named in allowedHosts) is kept.
 */
import type { V1Toleration } from '@kubernetes/client-node';

/** The taint the node lifecycle controller puts on a node whose kubelet went silent. */
export const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';

export function withNodeLost(
  tolerations: readonly V1Toleration[] | undefined,
  settings: { nodeLostSeconds: number },
): V1Toleration[] {
  const others = (tolerations ?? []).filter((t) => t.key !== UNREACHABLE_TAINT);
  return [
    ...others,
    {
      key: UNREACHABLE_TAINT,
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: settings.nodeLostSeconds,
    },
  ];
}
