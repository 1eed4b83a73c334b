import { createHash } from 'node:crypto';
import type { V1Node, V1Taint } from '@kubernetes/client-node';
import type { CoreApi } from './http/kube-core-api';
import { withKubeRetry, type KubeRetryOptions } from './kube-retry';

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
    private readonly core: Pick<CoreApi, 'listNode'>,
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
  return taints.length > 0 ? { name, usable: true, taints } : { name, usable: true };
}
