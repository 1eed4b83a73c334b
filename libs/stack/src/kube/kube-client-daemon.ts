import { readFileSync } from 'node:fs';
import type { ComponentStatus, StackComponent, StackEnv } from '../component';
import { Daemon } from '../daemon';
import { WaitAborted, waitFor } from '../wait';
import { startOrRestart } from './daemon-start';
import { type Progress } from './go-build';
import {
  ensureKubernetesBinary,
  kubernetesBinaryVersion,
  type KubernetesBinary,
} from './k8s-binary';
import { httpCall } from './kube-http';
import { ensurePki, type KubePki } from './pki';

export interface KubeClientDaemonOptions {
  port: number;
  /** The kubeconfig it connects (and delegates authn/authz) with. */
  kubeconfig: string;
  progress?: Progress;
}

/**
 * A control-plane process that is a client of the API server (kube-scheduler,
 * kube-controller-manager): one instance, no leader election, serving /healthz on 127.0.0.1 with
 * our serving certificate so readiness is checked against our CA.
 */
export abstract class KubeClientDaemon implements StackComponent {
  readonly port: number;
  protected readonly kubeconfig: string;
  private readonly daemon: Daemon;
  private readonly progress: Progress;

  constructor(
    readonly name: KubernetesBinary,
    options: KubeClientDaemonOptions,
  ) {
    this.port = options.port;
    this.kubeconfig = options.kubeconfig;
    this.daemon = new Daemon(name);
    this.progress = options.progress ?? (() => undefined);
  }

  /** Flags of this binary beyond the common ones. */
  protected abstract args(pki: KubePki): string[];

  async up(): Promise<StackEnv> {
    const binary = await ensureKubernetesBinary(this.name, this.progress);
    const pki = ensurePki();
    const args = [
      `--kubeconfig=${this.kubeconfig}`,
      `--authentication-kubeconfig=${this.kubeconfig}`,
      `--authorization-kubeconfig=${this.kubeconfig}`,
      // Our API server has no front proxy, hence no request-header CA to look up.
      '--authentication-skip-lookup=true',
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${this.port}`,
      `--tls-cert-file=${pki.servingCert}`,
      `--tls-private-key-file=${pki.servingKey}`,
      ...this.args(pki),
    ];
    await startOrRestart(this.daemon, binary, args, this.progress);
    await waitFor(this.name, () => this.healthy(pki), {
      timeoutMs: 60000,
      intervalMs: 500,
      onTimeout: () => this.daemon.tail(),
    });
    return {};
  }

  async down(): Promise<void> {
    await this.daemon.stop();
  }

  async status(): Promise<ComponentStatus> {
    const pid = this.daemon.pid();
    const healthy = pid !== undefined && (await this.healthy(ensurePki()).catch(() => false));
    const version = kubernetesBinaryVersion(this.name);
    return {
      name: this.name,
      running: healthy,
      pid,
      endpoint: `https://127.0.0.1:${this.port}`,
      detail: pid === undefined ? 'not running' : healthy ? `healthy, ${version}` : 'not healthy',
    };
  }

  private async healthy(pki: KubePki): Promise<boolean> {
    if (!this.daemon.isRunning()) {
      throw new WaitAborted(`kpm: ${this.name} exited\n${this.daemon.tail()}`);
    }
    const result = await httpCall(`https://127.0.0.1:${this.port}/healthz`, {
      ca: readFileSync(pki.caCert, 'utf8'),
      timeoutMs: 2000,
    });
    return result.status === 200;
  }
}
