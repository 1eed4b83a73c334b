import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpCall, kubeCall, type KubeEndpoint } from '@kpm/kube';
import { Daemon } from '../daemon';
import { startOrRestart } from '../kube/daemon-start';
import type { Progress } from '../kube/go-build';
import { issueCertificate, KUBELET_CLIENT_USER, type KubePki } from '../kube/pki';
import { stackPaths } from '../paths';
import { WaitAborted, waitFor } from '../wait';
import { createCgroupRoot, ensureSharedMount } from './host-state';
import { KUBELET_SYSCTLS, kubeletConfig, kubeletKubeconfig } from './node-config';
import { REAL_NODE_LABEL, type NodeLayout } from './node-layout';

interface Taint {
  key: string;
  value?: string;
  effect: string;
}

interface NodeJson {
  metadata?: { labels?: Record<string, string>; resourceVersion?: string };
  spec?: { taints?: Taint[] };
  status?: { conditions?: { type: string; status: string }[] };
}

/** The real node's own label and taint: only processes naming it land there. */
function nodeIdentity(): { labels: Record<string, string>; taints: Taint[] } {
  return {
    labels: { [REAL_NODE_LABEL]: 'true' },
    taints: [{ key: REAL_NODE_LABEL, value: 'true', effect: 'NoSchedule' }],
  };
}

/**
 * The node lifecycle controller's own taints (`node.kubernetes.io/…`: not-ready, unreachable,
 * unschedulable while cordoned): it owns them, so they are neither compared nor overwritten.
 */
const isLifecycleTaint = (t: Taint) => t.key.startsWith('node.kubernetes.io/');

function sameTaints(actual: readonly Taint[], wanted: readonly Taint[]): boolean {
  const key = (t: Taint) => `${t.key}=${t.value ?? ''}:${t.effect}`;
  const ours = actual.filter((t) => !isLifecycleTaint(t));
  return JSON.stringify(ours.map(key).sort()) === JSON.stringify(wanted.map(key).sort());
}

/**
 * The real node's kubelet: its own client certificate (system:node:<name>), started in a mount
 * namespace of its own (stack/node/kubelet-namespace.sh) so the kernel tunables it sets are
 * files of ours, registered tainted, and Ready once the API server says so.
 */
export class Kubelet {
  readonly daemon = new Daemon('kubelet');

  constructor(
    private readonly layout: NodeLayout,
    private readonly progress: Progress,
  ) {}

  /** Certificates, configuration, the cgroup parent and the shared root directory. */
  async prepare(endpoint: KubeEndpoint, pki: KubePki): Promise<string[]> {
    const { layout } = this;
    this.issueCertificates(pki);
    mkdirSync(layout.kubeletRoot, { recursive: true });
    mkdirSync(layout.podLogs, { recursive: true });
    mkdirSync(layout.sysctlDir, { recursive: true });
    for (const [name, value] of Object.entries(KUBELET_SYSCTLS)) {
      writeFileSync(join(layout.sysctlDir, name.replaceAll('/', '.')), `${value}\n`);
    }
    const config = kubeletConfig(layout, pki.caCert);
    const kubeconfig = kubeletKubeconfig(layout, endpoint.server, pki.caCert);
    writeFileSync(layout.kubeletConfig, config);
    writeFileSync(layout.kubeletKubeconfig, kubeconfig, { mode: 0o600 });
    createCgroupRoot(layout.cgroupRoot);
    await ensureSharedMount(layout.kubeletRoot);
    return [config, kubeconfig];
  }

  /** Starts the kubelet (or keeps the one that runs with the same inputs); waits for its healthz. */
  async start(binary: string, inputs: string[]): Promise<void> {
    const { layout } = this;
    const args = [
      '--mount',
      '--propagation',
      'unchanged',
      stackPaths.source('node', 'kubelet-namespace.sh'),
      layout.sysctlDir,
      binary,
      `--config=${layout.kubeletConfig}`,
      `--kubeconfig=${layout.kubeletKubeconfig}`,
      `--root-dir=${layout.kubeletRoot}`,
      `--hostname-override=${layout.name}`,
      `--node-ip=${layout.nodeIp}`,
      `--node-labels=${REAL_NODE_LABEL}=true`,
    ];
    await startOrRestart(this.daemon, 'unshare', args, this.progress, inputs);
    await waitFor('kubelet healthz', () => this.healthy(), {
      timeoutMs: 60000,
      intervalMs: 250,
      onTimeout: () => this.daemon.tail(),
    });
  }

  async healthy(): Promise<boolean> {
    if (!this.daemon.isRunning())
      throw new WaitAborted(`kpm: kubelet exited\n${this.daemon.tail()}`);
    const result = await httpCall(`http://127.0.0.1:${this.layout.healthzPort}/healthz`, {
      timeoutMs: 2000,
    });
    return result.status === 200;
  }

  /**
   * Waits for the Node to be Ready, then gives it exactly its own taint and label: that lifts
   * the `not-ready` taint the kubelet registers with (the node-lifecycle controller, which would,
   * does not run on the local stack: kwok's nodes send no heartbeats), and corrects a Node
   * registered by an older stack, whose labels and taints the kubelet never changes.
   */
  async waitReady(endpoint: KubeEndpoint): Promise<void> {
    await waitFor(`node ${this.layout.name} Ready`, () => this.readyAndUntainted(endpoint), {
      timeoutMs: 60000,
      intervalMs: 250,
      onTimeout: () => this.daemon.tail(),
    });
  }

  /** Lets the API server read logs and exec through the kubelet (kubeadm's binding, our user). */
  async authorizeApiServer(endpoint: KubeEndpoint): Promise<void> {
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: KUBELET_CLIENT_USER },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'system:kubelet-api-admin',
      },
      subjects: [
        { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: KUBELET_CLIENT_USER },
      ],
    };
    const path = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings';
    const result = await kubeCall(endpoint, 'POST', path, binding);
    if (result.status !== 201 && result.status !== 409) {
      throw new Error(
        `kpm: binding ${KUBELET_CLIENT_USER} failed: HTTP ${result.status} ${result.body}`,
      );
    }
  }

  /** Whether the Node is Ready (the API server's word). */
  async nodeReady(endpoint: KubeEndpoint): Promise<boolean> {
    const node = await this.readNode(endpoint);
    return isReady(node);
  }

  private async readyAndUntainted(endpoint: KubeEndpoint): Promise<boolean> {
    if (!this.daemon.isRunning())
      throw new WaitAborted(`kpm: kubelet exited\n${this.daemon.tail()}`);
    const node = await this.readNode(endpoint);
    if (!isReady(node)) return false;
    const wanted = nodeIdentity();
    const taints = node?.spec?.taints ?? [];
    const labels = node?.metadata?.labels ?? {};
    if (sameTaints(taints, wanted.taints) && labels[REAL_NODE_LABEL] === 'true') return true;
    // The kubelet sets labels and taints only when it registers a Node: one registered under
    // other ones (an older stack) gets ours, and the not-ready taint goes once it is Ready.
    const patch = {
      metadata: { resourceVersion: node?.metadata?.resourceVersion, labels: wanted.labels },
      spec: { taints: [...taints.filter(isLifecycleTaint), ...wanted.taints] },
    };
    const path = `/api/v1/nodes/${this.layout.name}`;
    await kubeCall(endpoint, 'PATCH', path, patch, 'application/merge-patch+json');
    return false; // seen as wanted on the next round
  }

  private async readNode(endpoint: KubeEndpoint): Promise<NodeJson | undefined> {
    const result = await kubeCall(endpoint, 'GET', `/api/v1/nodes/${this.layout.name}`);
    return result.status === 200 ? (JSON.parse(result.body) as NodeJson) : undefined;
  }

  /** Its client certificate (group system:nodes, for the Node authorizer) and serving certificate. */
  private issueCertificates(pki: KubePki): void {
    const { layout } = this;
    // Beside the CA in the stack's PKI: a CA made again removes them, and they are issued anew.
    if (!existsSync(layout.pki.clientCert)) {
      issueCertificate(pki, {
        cert: layout.pki.clientCert,
        key: layout.pki.clientKey,
        subject: `/O=system:nodes/CN=system:node:${layout.name}`,
        usage: 'clientAuth',
      });
    }
    if (!existsSync(layout.pki.servingCert)) {
      issueCertificate(pki, {
        cert: layout.pki.servingCert,
        key: layout.pki.servingKey,
        subject: `/CN=${layout.name}`,
        usage: 'serverAuth',
        sans: [`IP:${layout.nodeIp}`, `DNS:${layout.name}`],
      });
    }
  }
}

function isReady(node: NodeJson | undefined): boolean {
  return (node?.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}
