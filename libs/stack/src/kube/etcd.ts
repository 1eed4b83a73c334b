import { mkdirSync } from 'node:fs';
import { httpCall } from '@kpm/kube';
import type { StackEnv } from '../component';
import { stackPaths } from '../paths';
import { DaemonComponent } from './daemon-component';
import { startOrRestart } from './daemon-start';
import { ensureGoModuleBuild, type Progress } from './go-build';
import { kubePorts } from './ports';
import { etcdModuleDir, etcdVersion } from './versions';

export interface EtcdOptions {
  clientPort?: number;
  peerPort?: number;
  progress?: Progress;
}

/** A single-member etcd on 127.0.0.1 (plain HTTP: it is only reachable locally). */
export class EtcdComponent extends DaemonComponent {
  readonly clientPort: number;
  readonly peerPort: number;

  constructor(options: EtcdOptions = {}) {
    super('etcd', options.progress);
    const ports = kubePorts();
    this.clientPort = options.clientPort ?? ports.etcdClient;
    this.peerPort = options.peerPort ?? ports.etcdPeer;
  }

  /** What kube-apiserver's --etcd-servers takes. */
  get url(): string {
    return `http://127.0.0.1:${this.clientPort}`;
  }

  async prepare(): Promise<void> {
    await this.binary();
  }

  async up(): Promise<StackEnv> {
    const binary = await this.binary();
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
    await this.waitReady('etcd', () => this.probe(), { timeoutMs: 30000 });
    return {};
  }

  private binary(): Promise<string> {
    return ensureGoModuleBuild(
      { name: 'etcd', version: etcdVersion(), moduleDir: etcdModuleDir() },
      this.progress,
    );
  }

  protected describe(healthy: boolean): string {
    return healthy ? `healthy, ${etcdVersion()}` : 'not healthy';
  }

  protected override servingUrl(): string {
    return this.url;
  }

  protected async probe(): Promise<boolean> {
    this.assertRunning();
    const result = await httpCall(`${this.url}/health`, { timeoutMs: 2000 });
    return (
      result.status === 200 && (JSON.parse(result.body) as { health?: string }).health === 'true'
    );
  }
}
