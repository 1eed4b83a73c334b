import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubeCall, type KubeEndpoint } from '@kpm/kube';
import type { StackEnv } from '../component';
import { stackPaths } from '../paths';
import { DaemonComponent } from './daemon-component';
import { startOrRestart } from './daemon-start';
import { ensureGoInstall, type Progress } from './go-build';
import { ensureKwokDeletePolicy, ensureKwokKubeconfig } from './kwok-identity';
import { ensurePki } from './pki';
import { KWOK_VERSION } from './versions';

/** Label that marks the fake nodes kwok manages (and nothing else). */
export const SIM_NODE_LABEL = 'sim.kpm.daq/node';

interface NodeJson {
  metadata: { name: string };
  spec?: { taints?: { key: string }[] };
  status?: {
    conditions?: { type: string; status: string }[];
    addresses?: { type: string; address: string }[];
  };
}

export interface KwokOptions {
  /** The admin's endpoint, used to register nodes and to check they are Ready. */
  endpoint: () => KubeEndpoint;
  /** Fake node names; default kpm-node-1..3. */
  nodes?: string[];
  /** The stage file; default stack/kube/kwok.yaml. */
  configFile?: string;
  progress?: Progress;
}

/** kwok as the kubelet of a few fake nodes, driving pods through stack/kube/kwok.yaml. */
export class KwokComponent extends DaemonComponent {
  readonly nodes: string[];
  private readonly configFile: string;

  constructor(private readonly options: KwokOptions) {
    super('kwok', options.progress);
    this.nodes = options.nodes ?? ['kpm-node-1', 'kpm-node-2', 'kpm-node-3'];
    this.configFile = options.configFile ?? stackPaths.source('kube', 'kwok.yaml');
  }

  async prepare(): Promise<void> {
    await this.binary();
  }

  async up(): Promise<StackEnv> {
    const binary = await this.binary();
    const endpoint = this.options.endpoint();
    await this.registerNodes(endpoint);
    await ensureKwokDeletePolicy(endpoint);

    const args = [
      `--config=${this.stagesInHome()}`,
      `--kubeconfig=${ensureKwokKubeconfig(endpoint, ensurePki())}`,
      `--manage-nodes-with-label-selector=${SIM_NODE_LABEL}=true`,
    ];
    // A changed stage file takes effect on the next `up` without a manual restart.
    await startOrRestart(this.daemon, binary, args, this.progress, [
      readFileSync(this.configFile, 'utf8'),
    ]);
    await this.waitReady(`kwok nodes ${this.nodes.join(', ')}`, () => this.nodesReady(endpoint), {
      timeoutMs: 60000,
    });
    return {};
  }

  private binary(): Promise<string> {
    return ensureGoInstall(
      { name: 'kwok', version: KWOK_VERSION, pkg: 'sigs.k8s.io/kwok/cmd/kwok' },
      this.progress,
    );
  }

  /**
   * The stage file, copied under KPM_HOME: kwok's arguments then name the same path from every
   * checkout sharing the stack, so only a change of the stages' content restarts kwok.
   */
  private stagesInHome(): string {
    const dir = stackPaths.data('kwok');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'kwok.yaml');
    writeFileSync(file, readFileSync(this.configFile, 'utf8'));
    return file;
  }

  protected probe(): Promise<boolean> {
    return this.nodesReady(this.options.endpoint());
  }

  protected describe(ready: boolean): string {
    return ready ? `nodes ready: ${this.nodes.join(', ')}` : 'nodes not ready';
  }

  /** Creates the Node objects kwok will manage (no kubelet registers them here). */
  private async registerNodes(endpoint: KubeEndpoint): Promise<void> {
    for (const name of this.nodes) {
      const result = await kubeCall(endpoint, 'POST', '/api/v1/nodes', simulatedNode(name));
      if (result.status !== 201 && result.status !== 409) {
        throw new Error(`kpm: creating node ${name} failed: HTTP ${result.status} ${result.body}`);
      }
      if (result.status === 409) await this.ensureAddress(endpoint, name);
    }
  }

  /**
   * kwok sets a node's addresses only when it has none: a node registered under an older
   * `nodeIP` of the stage file gets the current one, so the API server never reaches out to an
   * address off this machine for a simulated kubelet.
   */
  private async ensureAddress(endpoint: KubeEndpoint, name: string): Promise<void> {
    const wanted = /^\s*nodeIP:\s*(\S+)/m.exec(readFileSync(this.configFile, 'utf8'))?.[1];
    const read = await kubeCall(endpoint, 'GET', `/api/v1/nodes/${name}`);
    if (!wanted || read.status !== 200) return;
    const addresses = (JSON.parse(read.body) as NodeJson).status?.addresses ?? [];
    const internal = addresses.find((a) => a.type === 'InternalIP')?.address;
    if (internal === undefined || internal === wanted) return;
    const status = {
      addresses: [
        { type: 'InternalIP', address: wanted },
        { type: 'Hostname', address: name },
      ],
    };
    const path = `/api/v1/nodes/${name}/status`;
    await kubeCall(endpoint, 'PATCH', path, { status }, 'application/merge-patch+json');
  }

  private async nodesReady(endpoint: KubeEndpoint): Promise<boolean> {
    this.assertRunning();
    const selector = encodeURIComponent(`${SIM_NODE_LABEL}=true`);
    const result = await kubeCall(endpoint, 'GET', `/api/v1/nodes?labelSelector=${selector}`);
    if (result.status !== 200) return false;
    const list = JSON.parse(result.body) as { items: NodeJson[] };
    // Ready and untainted (the node-lifecycle controller lifts not-ready): the scheduler can use it.
    const ready = new Set(
      list.items
        .filter((node) =>
          node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        )
        .filter((node) => !node.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/not-ready'))
        .map((node) => node.metadata.name),
    );
    return this.nodes.every((name) => ready.has(name));
  }
}

/** A Node object kwok manages (by SIM_NODE_LABEL) and no kubelet registers; `labels` are added. */
export function simulatedNode(name: string, labels: Record<string, string> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        [SIM_NODE_LABEL]: 'true',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        type: 'kwok',
        ...labels,
      },
      annotations: { 'kwok.x-k8s.io/node': 'fake' },
    },
    spec: {},
  };
}
