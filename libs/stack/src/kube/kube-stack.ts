import type { KubeEndpoint } from '@kpm/kube';
import type { ComponentStatus, StackComponent, StackEnv } from '../component';
import { ApiServerComponent } from './apiserver';
import { ControllerManagerComponent } from './controller-manager';
import { EtcdComponent } from './etcd';
import type { Progress } from './go-build';
import { ensureKubernetesBinaries } from './k8s-binary';
import { kubeconfigPath, writeKubeconfig } from './kubeconfig';
import { KwokComponent } from './kwok';
import { ensurePki } from './pki';
import { kubePorts, type KubePorts } from './ports';
import { SchedulerComponent } from './scheduler';
import { withFileLock } from '../file-lock';

export interface KubeStackOptions {
  ports?: Partial<KubePorts>;
  /** Fake node names; default kpm-node-1..3. */
  nodes?: string[];
  /** Build and start messages; default prints to stderr. */
  progress?: Progress;
}

/**
 * The local Kubernetes control plane: etcd → kube-apiserver → kube-controller-manager →
 * kube-scheduler → kwok, each built from the Go module proxy on first use and started as a plain
 * process. `up()` is idempotent (seconds when running) and returns KUBECONFIG.
 */
export class KubeStack implements StackComponent {
  readonly name = 'kubernetes';
  readonly etcd: EtcdComponent;
  readonly apiserver: ApiServerComponent;
  readonly controllerManager: ControllerManagerComponent;
  readonly scheduler: SchedulerComponent;
  readonly kwok: KwokComponent;
  private readonly progress: Progress;

  constructor(options: KubeStackOptions = {}) {
    const ports = { ...kubePorts(), ...options.ports };
    const progress =
      options.progress ?? ((message: string) => process.stderr.write(`kpm: ${message}\n`));
    this.progress = progress;
    this.etcd = new EtcdComponent({
      clientPort: ports.etcdClient,
      peerPort: ports.etcdPeer,
      progress,
    });
    this.apiserver = new ApiServerComponent({
      port: ports.apiserver,
      etcdUrl: this.etcd.url,
      progress,
    });
    const kubeconfig = kubeconfigPath();
    this.controllerManager = new ControllerManagerComponent({
      port: ports.controllerManager,
      kubeconfig,
      progress,
    });
    this.scheduler = new SchedulerComponent({ port: ports.scheduler, kubeconfig, progress });
    this.kwok = new KwokComponent({
      endpoint: () => this.endpoint(),
      nodes: options.nodes,
      progress,
    });
  }

  /** The parts in start order (for callers that list components one by one). */
  get components(): StackComponent[] {
    return [this.etcd, this.apiserver, this.controllerManager, this.scheduler, this.kwok];
  }

  /** Server, CA and admin token, for provisioning calls without a kubeconfig. */
  endpoint(): KubeEndpoint {
    return this.apiserver.endpoint(ensurePki());
  }

  /** etcd's build first: it starts first. The Kubernetes binaries come from one graph (all four). */
  async prepare(): Promise<void> {
    await Promise.all([
      this.etcd.prepare(),
      ensureKubernetesBinaries(this.progress),
      this.kwok.prepare(),
    ]);
  }

  async up(): Promise<StackEnv> {
    return withFileLock('kube', () => this.upLocked(), {
      onWait: (holder) => this.progress(`waiting for another kpm (pid ${holder}) bringing it up`),
    });
  }

  async down(): Promise<void> {
    await withFileLock('kube', async () => {
      for (const component of [...this.components].reverse()) await component.down();
    });
  }

  private async upLocked(): Promise<StackEnv> {
    ensurePki();
    await this.etcd.up();
    await this.apiserver.up();
    // The controllers connect with the admin kubeconfig; kwok with its own (kwok-identity.ts).
    const kubeconfig = writeKubeconfig(this.endpoint());
    await this.controllerManager.up();
    await this.scheduler.up();
    await this.kwok.up();
    return { KUBECONFIG: kubeconfig };
  }

  async status(): Promise<ComponentStatus> {
    const parts = await this.statuses();
    return {
      name: this.name,
      running: parts.every((part) => part.running),
      pid: parts.find((part) => part.name === this.apiserver.name)?.pid,
      endpoint: this.apiserver.server,
      detail: parts
        .map((part) => `${part.name}: ${part.detail ?? (part.running ? 'running' : 'stopped')}`)
        .join('; '),
    };
  }

  /** One status per process. */
  statuses(): Promise<ComponentStatus[]> {
    return Promise.all(this.components.map((component) => component.status()));
  }
}
