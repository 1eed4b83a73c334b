/**
 * Which nodes the cluster has lost: the node lifecycle controller sets a node's Ready condition to
 * Unknown when its kubelet stops posting status and renewing its lease (`NodeStatusUnknown`,
 * "Kubelet stopped posting node status."). A Ready False node has a kubelet that reports — it
 * still stops its containers and reports their exits — so only Unknown is a loss.
 *
 * Nodes come typed from lists; timestamps may be Date or string.
 */
import type { V1Node } from '@kubernetes/client-node';

/** A node the cluster lost, in the words of its Ready condition. */
export interface NodeLoss {
  node: string;
  /** The Ready condition's reason, e.g. NodeStatusUnknown. */
  reason: string;
  message: string;
  /** When Ready became Unknown (RFC 3339), when known. */
  since?: string;
}

/** The lost nodes among `nodes`, by name. */
export function lostNodes(nodes: readonly V1Node[]): Map<string, NodeLoss> {
  const lost = new Map<string, NodeLoss>();
  for (const node of nodes) {
    const name = node.metadata?.name;
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    if (!name || ready?.status !== 'Unknown') continue;
    const since = timeOf(ready.lastTransitionTime);
    lost.set(name, {
      node: name,
      reason: ready.reason ?? 'NodeStatusUnknown',
      message: ready.message ?? 'the node stopped reporting',
      ...(since ? { since } : {}),
    });
  }
  return lost;
}

function timeOf(value: unknown): string | undefined {
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** How a lost node reads in a termination's pod message. */
export function nodeLossText(loss: NodeLoss): string {
  const since = loss.since ? ` since ${loss.since}` : '';
  return `node ${loss.node} lost (Ready Unknown${since}: ${loss.reason}: ${loss.message})`;
}
