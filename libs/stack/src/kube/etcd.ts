import { mkdirSync } from 'node:fs';
import type { ComponentStatus, StackComponent, StackEnv } from '../component';
import { Daemon } from '../daemon';
import { stackPaths } from '../paths';
import { WaitAborted, waitFor } from '../wait';
import { startOrRestart } from './daemon-start';
import { ensureGoModuleBuild, type Progress } from './go-build';
import { httpCall } from './kube-http';
import { kubePorts } from './ports';
import { etcdModuleDir, etcdVersion } from './versions';

export interface EtcdOptions {
  clientPort?: number;
  peerPort?: number;
  progress?: Progress;
}

/** A single-member etcd on 127.0.0.1 (plain HTTP: it is only reachable locally). */
export class EtcdComponent implements StackComponent {
  readonly name = 'etcd';
  readonly clientPort: number;
  readonly peerPort: number;
  private readonly daemon = new Daemon('etcd');
  private readonly progress: Progress;

  constructor(options: EtcdOptions = {}) {
    const ports = kubePorts();
    this.clientPort = options.clientPort ?? ports.etcdClient;
    this.peerPort = options.peerPort ?? ports.etcdPeer;
    this.progress = options.progress ?? (() => undefined);
  }

  /** What kube-apiserver's --etcd-servers takes. */
  get url(): string {
    return `http://127.0.0.1:${this.clientPort}`;
  }

  async up(): Promise<StackEnv> {
    const binary = await ensureGoModuleBuild(
      { name: 'etcd', version: etcdVersion(), moduleDir: etcdModuleDir() },
      this.progress,
    );
    const dataDir = stackPaths.data('etcd');
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const peer = `http://127.0.0.1:${this.peerPort}`;
    await startOrRestart(
      this.daemon,
      binary,
      [
        '--name=kpm',
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${this.url}`,
        `--advertise-client-urls=${this.url}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=kpm=${peer}`,
        // A throw-away local store: durability is not worth the fsync latency.
        '--unsafe-no-fsync',
        '--quota-backend-bytes=4294967296',
        '--log-level=warn',
      ],
      this.progress,
    );
    await waitFor('etcd', () => this.healthy(), {
      timeoutMs: 30000,
      onTimeout: () => this.daemon.tail(),
    });
    return {};
  }

  async down(): Promise<void> {
    await this.daemon.stop();
  }

  async status(): Promise<ComponentStatus> {
    const pid = this.daemon.pid();
    const healthy = pid !== undefined && (await this.healthy().catch(() => false));
    return {
      name: this.name,
      running: healthy,
      pid,
      endpoint: this.url,
      detail:
        pid === undefined ? 'not running' : healthy ? `healthy, ${etcdVersion()}` : 'not healthy',
    };
  }

  private async healthy(): Promise<boolean> {
    if (!this.daemon.isRunning()) throw new WaitAborted(`kpm: etcd exited\n${this.daemon.tail()}`);
    const result = await httpCall(`${this.url}/health`, { timeoutMs: 2000 });
    return (
      result.status === 200 && (JSON.parse(result.body) as { health?: string }).health === 'true'
    );
  }
}
