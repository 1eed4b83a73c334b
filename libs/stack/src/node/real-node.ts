import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KubeEndpoint } from '@kpm/kube';
import type { ComponentStatus, StackComponent, StackEnv } from '../component';
import { withFileLock } from '../file-lock';
import { ensureNodeImages, type NodeImages } from '../images';
import { ensureGoInstall, goBinaryPath, type Progress } from '../kube/go-build';
import { ensureKubernetesBinary, kubernetesBinaryVersion } from '../kube/k8s-binary';
import { ensurePki } from '../kube/pki';
import { waitFor } from '../wait';
import { Containerd } from './containerd';
import { ensureDebianPackages, hostCannotRunNode } from './host-check';
import { ensureBridge, existingRuntimeDirs } from './host-state';
import { Kubelet } from './kubelet';
import { nodeLayout, type NodeLayout } from './node-layout';
import {
  containersRunning,
  drainNode,
  DRAIN_GRACE_SECONDS,
  killShims,
  removeHostState,
  removeSandboxes,
  setSchedulable,
  stopDaemon,
} from './node-teardown';

/** crictl from the Go module proxy (no 1.36 release is served; 1.37 speaks the same CRI v1). */
export const CRICTL_VERSION = 'v1.37.0';

export interface RealNodeOptions {
  /** The admin's view of the API server (the control plane is up before the node). */
  endpoint: () => KubeEndpoint;
  progress?: Progress;
}

/** What the node runs, fetched and built before it starts. */
interface NodeSupplies {
  binaries: { kubelet: string; crictl: string };
  images: NodeImages;
}

/** What `up` found on the host, kept until `down` has removed what `up` made. */
interface HostRecord {
  runtimeDirs: string[];
}

/**
 * One real Kubernetes node beside kwok's simulated ones: containerd, runc and the CNI plugins
 * from Debian's packages, the kubelet built at the control plane's version, images built here
 * (no registry), pods on a bridge of their own. It changes nothing on the host that `down` does
 * not remove: no sysctl (the kubelet's are files of ours in its mount namespace, the bridge
 * plugin is no gateway), no iptables rule, its cgroups under one parent, its mounts under its
 * own directory. Tainted, it takes only processes whose allowedHosts name it.
 */
export class RealNode implements StackComponent {
  readonly name = 'real-node';
  private readonly layout: NodeLayout;
  private readonly progress: Progress;
  private readonly containerd: Containerd;
  private readonly kubelet: Kubelet;
  private suppliesInFlight?: Promise<NodeSupplies>;

  constructor(private readonly options: RealNodeOptions) {
    this.layout = nodeLayout();
    this.progress =
      options.progress ?? ((message: string) => process.stderr.write(`kpm: ${message}\n`));
    this.containerd = new Containerd(this.layout, this.progress);
    this.kubelet = new Kubelet(this.layout, this.progress);
  }

  /** The node's packages, binaries and images, unless this host cannot run it. */
  async prepare(): Promise<void> {
    if (!hostCannotRunNode()) await this.supplies();
  }

  async up(): Promise<StackEnv> {
    const why = hostCannotRunNode();
    if (why) {
      this.progress(`real node: not started here: ${why} (kwok's nodes only)`);
      return {};
    }
    return withFileLock('node', () => this.upLocked(), {
      onWait: (holder) => this.progress(`waiting for another kpm (pid ${holder}) bringing it up`),
    });
  }

  async down(): Promise<void> {
    await withFileLock('node', () => this.downLocked());
  }

  async status(): Promise<ComponentStatus> {
    const kubelet = this.kubelet.daemon.pid();
    const containerd = this.containerd.daemon.pid();
    if (kubelet === undefined && containerd === undefined) {
      const why = hostCannotRunNode();
      return { name: this.name, running: false, detail: why ? `not here: ${why}` : 'stopped' };
    }
    const ready = await this.kubelet.nodeReady(this.options.endpoint()).catch(() => false);
    const parts = [
      `kubelet ${kubelet ? `pid ${kubelet}` : 'stopped'}`,
      `containerd ${containerd ? `pid ${containerd}` : 'stopped'}`,
      `node ${this.layout.name} ${ready ? 'Ready' : 'not Ready'}`,
    ];
    return {
      name: this.name,
      running: ready && kubelet !== undefined && containerd !== undefined,
      pid: kubelet,
      endpoint: `https://${this.layout.nodeIp}:${this.layout.kubeletPort}`,
      detail: parts.join('; '),
    };
  }

  // ---- faults, for the tests (`kpm stack node …`): only the daemons `up` started ----------

  /**
   * SIGKILLs the kubelet `up` started (its pid in the run directory), as a crash: its pods'
   * containers go on under containerd; the API server hears nothing from the node until
   * `start`. Returns the pid killed.
   */
  async killKubelet(): Promise<number> {
    return withFileLock('node', () => this.kubelet.daemon.signalAndWait('SIGKILL'));
  }

  /** SIGTERMs the kubelet `up` started and waits until it exited; its containers go on. */
  async stopKubelet(): Promise<number> {
    return withFileLock('node', () => this.kubelet.daemon.signalAndWait('SIGTERM'));
  }

  /**
   * SIGTERMs the containerd `up` started, alone: the shims, each in a process group of its own,
   * keep the containers running and hold their exits until containerd is back (`start`).
   */
  async stopContainerd(): Promise<number> {
    return withFileLock('node', () => this.containerd.daemon.signalAndWait('SIGTERM'));
  }

  /**
   * Stops the containerd `up` started (SIGTERM to it alone: the shims, each in a process group
   * of its own, keep the containers running), then starts it again and waits for the node to be
   * Ready, as `start`. Returns the pid stopped.
   */
  async restartContainerd(): Promise<number> {
    return withFileLock('node', async () => {
      const pid = await this.containerd.daemon.signalAndWait('SIGTERM');
      await this.upLocked();
      return pid;
    });
  }

  /** Starts what of the node is stopped (containerd, the kubelet) and waits until it is Ready. */
  async start(): Promise<void> {
    await withFileLock('node', () => this.upLocked());
  }

  private async upLocked(): Promise<StackEnv> {
    const { layout, progress } = this;
    this.recordHost();
    const { binaries, images } = await this.supplies();
    await ensureBridge(layout.bridge, `${layout.nodeIp}/16`);
    await this.containerd.start(images.pause.reference);
    await this.importImages(images);
    const endpoint = this.options.endpoint();
    const inputs = await this.kubelet.prepare(endpoint, ensurePki());
    await this.kubelet.authorizeApiServer(endpoint);
    await this.kubelet.start(binaries.kubelet, inputs);
    await this.kubelet.waitReady(endpoint);
    await setSchedulable(endpoint, layout, true); // `down` cordoned it
    this.writeCrictlConfig();
    progress(`real node: ${layout.name} Ready (${kubernetesBinaryVersion()}, ${layout.nodeIp})`);
    return { KPM_REAL_NODE: layout.name, KPM_REAL_IMAGE: images.daq.reference };
  }

  /**
   * Debian's packages, then the binaries and images side by side: fetched and built once per
   * process (`prepare` starts it, `up` awaits it); a failure is not kept, the next call retries.
   */
  private supplies(): Promise<NodeSupplies> {
    this.suppliesInFlight ??= this.fetchSupplies().catch((error: unknown) => {
      this.suppliesInFlight = undefined;
      throw error;
    });
    return this.suppliesInFlight;
  }

  private async fetchSupplies(): Promise<NodeSupplies> {
    await ensureDebianPackages(this.progress);
    const [kubelet, crictl, images] = await Promise.all([
      ensureKubernetesBinary('kubelet', this.progress),
      ensureGoInstall(
        { name: 'crictl', version: CRICTL_VERSION, pkg: 'sigs.k8s.io/cri-tools/cmd/crictl' },
        this.progress,
      ),
      ensureNodeImages(this.progress),
    ]);
    return { binaries: { kubelet, crictl }, images };
  }

  private async importImages(images: NodeImages): Promise<void> {
    const present = new Set(await this.containerd.images());
    for (const image of [images.pause, images.daq]) {
      if (present.has(image.reference)) continue;
      const started = Date.now();
      await this.containerd.importImage(image.archive);
      this.progress(`real node: imported ${image.reference} in ${Date.now() - started} ms`);
    }
  }

  private async downLocked(): Promise<void> {
    const { layout, progress } = this;
    const crictl = this.crictlIfBuilt();
    if (this.kubelet.daemon.isRunning()) await this.drain(crictl);
    await stopDaemon(this.kubelet.daemon, progress);
    if (crictl && this.containerd.daemon.isRunning()) await removeSandboxes(crictl, layout);
    await stopDaemon(this.containerd.daemon, progress);
    const killed = await killShims(layout);
    if (killed.length > 0) progress(`real node: killed shims left running: ${killed.join(', ')}`);
    const left = await removeHostState(layout, this.readHostRecord().runtimeDirs, progress);
    if (left.length > 0) throw new Error(`kpm: the real node left behind: ${left.join('; ')}`);
    rmSync(layout.hostRecord, { force: true });
  }

  /**
   * Deletes the node's pods through the API and waits for their containers to stop, as a node
   * drained before shutdown: each process gets SIGTERM and its pod a termination record.
   */
  private async drain(crictl: string | undefined): Promise<void> {
    let count: number;
    try {
      count = await drainNode(this.options.endpoint(), this.layout);
    } catch (error) {
      this.progress(
        `real node: not drained (${(error as Error).message}); its containers are stopped`,
      );
      return;
    }
    if (count === 0 || !crictl) return;
    this.progress(`real node: draining ${count} pods (grace ${DRAIN_GRACE_SECONDS} s)`);
    await waitFor(
      'the real node drained',
      async () => !(await containersRunning(crictl, this.layout)),
      {
        timeoutMs: (DRAIN_GRACE_SECONDS + 15) * 1000,
        intervalMs: 250,
      },
    ).catch((error: Error) =>
      this.progress(`real node: ${error.message}; removing its pods anyway`),
    );
  }

  /** crictl as `up` built it; none when the node never came up here. */
  private crictlIfBuilt(): string | undefined {
    const built = goBinaryPath('crictl', CRICTL_VERSION);
    return existsSync(built) ? built : undefined;
  }

  /** The runtime directories that existed before the first `up` (kept across repeated `up`s). */
  private recordHost(): void {
    if (existsSync(this.layout.hostRecord)) return;
    mkdirSync(dirname(this.layout.hostRecord), { recursive: true });
    const record: HostRecord = { runtimeDirs: existingRuntimeDirs() };
    writeFileSync(this.layout.hostRecord, JSON.stringify(record));
  }

  private readHostRecord(): HostRecord {
    if (!existsSync(this.layout.hostRecord)) return { runtimeDirs: existingRuntimeDirs() };
    return JSON.parse(readFileSync(this.layout.hostRecord, 'utf8')) as HostRecord;
  }

  /** `crictl --config <this>` reaches the node's containerd, for anyone looking at it by hand. */
  private writeCrictlConfig(): void {
    const endpoint = `unix://${this.layout.containerdSocket}`;
    const config = `runtime-endpoint: ${endpoint}\nimage-endpoint: ${endpoint}\n`;
    writeFileSync(join(this.layout.dir, 'crictl.yaml'), config);
  }
}
