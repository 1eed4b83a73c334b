import { readFileSync } from 'node:fs';
import { kubeCall, type KubeEndpoint } from '@kpm/kube';
import type { StackEnv } from '../component';
import { DaemonComponent } from './daemon-component';
import { startOrRestart } from './daemon-start';
import { type Progress } from './go-build';
import { ensureKubernetesBinary, kubernetesBinaryVersion } from './k8s-binary';
import { ensurePki, type KubePki } from './pki';
import { kubePorts } from './ports';

export interface ApiServerOptions {
  port?: number;
  /** --etcd-servers; defaults to the local etcd's client port. */
  etcdUrl?: string;
  progress?: Progress;
}

/** Cluster-internal ranges: kwok's pod CIDR (stack/kube/kwok.yaml) must not overlap them. */
export const SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/16';

/** kube-apiserver on 127.0.0.1 with TLS, an admin token, RBAC and service-account issuing. */
export class ApiServerComponent extends DaemonComponent {
  readonly port: number;
  private readonly etcdUrl: string;

  constructor(options: ApiServerOptions = {}) {
    super('kube-apiserver', options.progress);
    const ports = kubePorts();
    this.port = options.port ?? ports.apiserver;
    this.etcdUrl = options.etcdUrl ?? `http://127.0.0.1:${ports.etcdClient}`;
  }

  get server(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** The admin's view of this server (creates the PKI if missing). */
  endpoint(pki: KubePki = ensurePki()): KubeEndpoint {
    return { server: this.server, ca: readFileSync(pki.caCert, 'utf8'), token: pki.adminToken };
  }

  async up(): Promise<StackEnv> {
    const binary = await ensureKubernetesBinary('kube-apiserver', this.progress);
    const pki = ensurePki();
    await startOrRestart(this.daemon, binary, this.args(pki), this.progress);
    const endpoint = this.endpoint(pki);
    await this.waitReady('kube-apiserver', () => this.ready(endpoint), {
      timeoutMs: 120000,
      intervalMs: 500,
    });
    return {};
  }

  protected probe(): Promise<boolean> {
    return this.ready(this.endpoint());
  }

  protected describe(ready: boolean): string {
    return ready ? `ready, ${kubernetesBinaryVersion()}` : 'not ready';
  }

  protected override servingUrl(): string {
    return this.server;
  }

  private args(pki: KubePki): string[] {
    // envtest's flag set, plus our own identity and serving certificate.
    return [
      `--etcd-servers=${this.etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${this.port}`,
      `--cert-dir=${pki.dir}`,
      `--tls-cert-file=${pki.servingCert}`,
      `--tls-private-key-file=${pki.servingKey}`,
      `--client-ca-file=${pki.caCert}`,
      `--token-auth-file=${pki.tokenFile}`,
      // Node: the real node's kubelet acts as system:node:<name> (group system:nodes), limited to
      // its own node and pods by the Node authorizer and NodeRestriction, as on any cluster.
      '--authorization-mode=Node,RBAC',
      '--enable-admission-plugins=NodeRestriction',
      `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${pki.serviceAccountPub}`,
      `--service-account-signing-key-file=${pki.serviceAccountKey}`,
      '--allow-privileged=true',
      // The `kubernetes` Service's endpoint would be 127.0.0.1, which Endpoints refuse (loopback).
      '--endpoint-reconciler-type=none',
      // Logs and exec reach the real node's kubelet at its InternalIP, both sides with
      // certificates of the stack's CA.
      `--kubelet-client-certificate=${pki.kubeletClientCert}`,
      `--kubelet-client-key=${pki.kubeletClientKey}`,
      `--kubelet-certificate-authority=${pki.caCert}`,
      '--kubelet-preferred-address-types=InternalIP',
      '--profiling=false',
    ];
  }

  private async ready(endpoint: KubeEndpoint): Promise<boolean> {
    this.assertRunning();
    const result = await kubeCall(endpoint, 'GET', '/readyz');
    return result.status === 200;
  }
}
