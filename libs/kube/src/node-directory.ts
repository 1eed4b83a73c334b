import { createHash } from 'node:crypto';
import type { V1Node, V1Pod, V1Taint } from '@kubernetes/client-node';
import type { CoreApi } from './http/kube-core-api';
import { withKubeRetry, type KubeRetryOptions } from './kube-retry';
import { milliOf } from './quantity';

/** Whether pods may be placed on a node, and why not. */
export interface NodeVerdict {
  name: string;
  usable: boolean;
  /** `not ready`, `cordoned` or `not part of the cluster` when not usable. */
  reason?: string;
  /**
   * The node's taints that keep pods off it (NoSchedule, NoExecute), but those of the node
   * lifecycle, which Ready already tells: the node is only for processes that name it.
   */
  taints?: V1Taint[];
  /** What the node offers pods (`status.allocatable`), as quantities by resource. */
  allocatable?: Record<string, string>;
}

export interface NodeDirectoryOptions {
  /** drunc's host_cache_expiry: how long one listing of the nodes is trusted. */
  expiryMs: number;
  retry?: KubeRetryOptions;
  now?: () => number;
}

interface Snapshot {
  at: number;
  verdicts: Map<string, NodeVerdict>;
}

/**
 * drunc's host check: a node is usable when it is Ready and not cordoned. One list call
 * refreshes the verdicts of every node, cached for `expiryMs`, so a boot of a thousand processes
 * asks the API server once.
 */
export class NodeDirectory {
  private snapshot?: Snapshot;
  private refreshing?: Promise<Snapshot>;
  private readonly now: () => number;

  constructor(
    private readonly core: Pick<CoreApi, 'listNode' | 'listPodForAllNamespaces'>,
    private readonly options: NodeDirectoryOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** The verdict on `host` (a node name from allowedHosts). */
  async check(host: string): Promise<NodeVerdict> {
    const { verdicts } = await this.current();
    return verdicts.get(host) ?? { name: host, usable: false, reason: 'not part of the cluster' };
  }

  /** Every usable node that is not tainted, sorted by name: the nodes for anyone. */
  async usableNodes(): Promise<string[]> {
    const { verdicts } = await this.current();
    return [...verdicts.values()]
      .filter((v) => v.usable && !v.taints)
      .map((v) => v.name)
      .sort();
  }

  /**
   * A usable, untainted node for a process without allowed hosts, spread by hashing `key` (the
   * process uuid), so a redelivered boot picks the same node again. Undefined when none is usable.
   * A tainted node takes only the processes that name it in their allowed hosts.
   */
  async choose(key: string): Promise<string | undefined> {
    const nodes = await this.usableNodes();
    if (nodes.length === 0) return undefined;
    const digest = createHash('sha1').update(key).digest();
    return nodes[digest.readUInt32BE(0) % nodes.length];
  }

  /**
   * What the pods bound to `host` and not ended request, summed by resource in thousandths
   * (`milliOf`): the scheduler's view of what is taken. Read fresh, not cached: a boot's fit
   * check asks it once.
   */
  async requested(host: string): Promise<Record<string, number>> {
    const fieldSelector = `spec.nodeName=${host},status.phase!=Succeeded,status.phase!=Failed`;
    const list = await withKubeRetry(
      () => this.core.listPodForAllNamespaces({ fieldSelector }),
      this.options.retry,
    );
    const total: Record<string, number> = {};
    for (const pod of list.items)
      for (const [resource, value] of Object.entries(podRequests(pod)))
        total[resource] = (total[resource] ?? 0) + value;
    return total;
  }

  /** A human summary for error messages: `kpm-node-1 (usable), kpm-node-2 (cordoned)`. */
  async summary(): Promise<string> {
    const { verdicts } = await this.current();
    const parts = [...verdicts.values()].map(
      (v) =>
        `${v.name} (${v.usable ? (v.taints ? 'usable when named, tainted' : 'usable') : v.reason})`,
    );
    return parts.sort().join(', ') || 'no nodes';
  }

  private async current(): Promise<Snapshot> {
    const snapshot = this.snapshot;
    if (snapshot && this.now() - snapshot.at < this.options.expiryMs) return snapshot;
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async refresh(): Promise<Snapshot> {
    const list = await withKubeRetry(() => this.core.listNode({}), this.options.retry);
    const verdicts = new Map(
      list.items.map((node) => [node.metadata?.name ?? '', verdictOf(node)]),
    );
    verdicts.delete('');
    this.snapshot = { at: this.now(), verdicts };
    return this.snapshot;
  }
}

/** Taints the node lifecycle sets and lifts with the Ready condition, which is judged itself. */
const LIFECYCLE_TAINTS = new Set([
  'node.kubernetes.io/not-ready',
  'node.kubernetes.io/unreachable',
  'node.kubernetes.io/unschedulable',
]);

/**
 * Ready condition True and not cordoned (`spec.unschedulable`), as drunc checks; with the
 * taints that reserve it for processes naming it.
 */
function verdictOf(node: V1Node): NodeVerdict {
  const name = node.metadata?.name ?? '';
  const ready = (node.status?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );
  if (!ready) return { name, usable: false, reason: 'not ready' };
  if (node.spec?.unschedulable) return { name, usable: false, reason: 'cordoned' };
  const taints = (node.spec?.taints ?? []).filter(
    (t) => t.effect !== 'PreferNoSchedule' && !LIFECYCLE_TAINTS.has(t.key),
  );
  const allocatable = node.status?.allocatable;
  return {
    name,
    usable: true,
    ...(taints.length > 0 ? { taints } : {}),
    ...(allocatable ? { allocatable } : {}),
  };
}

/**
 * A pod's requests as the scheduler counts them, in thousandths (`milliOf`): its containers' and
 * sidecars' (init containers that keep running, `restartPolicy: Always`) summed, or, where more,
 * an init container's with the sidecars started before it (init containers run one at a time);
 * plus the pod's `overhead`.
 */
export function podRequests(pod: V1Pod): Record<string, number> {
  const spec = pod.spec;
  const sum: Record<string, number> = {};
  const add = (into: Record<string, number>, map?: Record<string, string>) => {
    for (const [resource, value] of quantities(map)) into[resource] = (into[resource] ?? 0) + value;
  };
  for (const c of spec?.containers ?? []) add(sum, c.resources?.requests);
  const sidecars: Record<string, number> = {};
  const peak: Record<string, number> = {};
  for (const c of spec?.initContainers ?? []) {
    if (c.restartPolicy === 'Always') {
      add(sidecars, c.resources?.requests);
      continue;
    }
    const during: Record<string, number> = { ...sidecars };
    add(during, c.resources?.requests);
    for (const [resource, value] of Object.entries(during))
      peak[resource] = Math.max(peak[resource] ?? 0, value);
  }
  for (const [resource, value] of Object.entries(sidecars))
    sum[resource] = (sum[resource] ?? 0) + value;
  for (const [resource, value] of Object.entries(peak))
    sum[resource] = Math.max(sum[resource] ?? 0, value);
  add(sum, spec?.overhead);
  return sum;
}

function quantities(map: Record<string, string> | undefined): Array<[string, number]> {
  return Object.entries(map ?? {}).flatMap(([resource, text]) => {
    const value = milliOf(text);
    return value === undefined ? [] : [[resource, value] as [string, number]];
  });
}
