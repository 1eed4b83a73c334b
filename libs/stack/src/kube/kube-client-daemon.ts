import { readFileSync } from 'node:fs';
import { httpCall } from '@kpm/kube';
import type { StackEnv } from '../component';
import { DaemonComponent } from './daemon-component';
import { startOrRestart } from './daemon-start';
import { type Progress } from './go-build';
import {
  ensureKubernetesBinary,
  kubernetesBinaryVersion,
  type KubernetesBinary,
} from './k8s-binary';
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
export abstract class KubeClientDaemon extends DaemonComponent {
  readonly port: number;
  protected readonly kubeconfig: string;

  constructor(
    override readonly name: KubernetesBinary,
    options: KubeClientDaemonOptions,
  ) {
    super(name, options.progress);
    this.port = options.port;
    this.kubeconfig = options.kubeconfig;
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
    await this.waitReady(this.name, () => this.healthy(pki), { timeoutMs: 60000, intervalMs: 500 });
    return {};
  }

  protected probe(): Promise<boolean> {
    return this.healthy(ensurePki());
  }

  protected describe(healthy: boolean): string {
    return healthy ? `healthy, ${kubernetesBinaryVersion()}` : 'not healthy';
  }

  protected override servingUrl(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  private async healthy(pki: KubePki): Promise<boolean> {
    this.assertRunning();
    const result = await httpCall(`${this.servingUrl()}/healthz`, {
      ca: readFileSync(pki.caCert, 'utf8'),
      timeoutMs: 2000,
    });
    return result.status === 200;
  }
}
