import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { httpCall, kubeCall, type KubeEndpoint } from '@kpm/kube';
import type { StackEnv } from '../component';
import { Daemon } from '../daemon';
import { stackPaths } from '../paths';
import { runCommand } from '../run-command';
import { DaemonComponent } from '../kube/daemon-component';
import { startOrRestart } from '../kube/daemon-start';
import { ensureGoInstall, type Progress } from '../kube/go-build';
import { kubeconfigPath } from '../kube/kubeconfig';
import { issueCertificate, openssl } from '../kube/pki';
import { portFromEnv } from '../kube/ports';
import { KUEUE_VERSION } from '../kube/versions';
import {
  KUEUE_CA_NAME,
  KUEUE_NAMESPACE,
  KUEUE_WEBHOOK_DNS,
  KUEUE_WEBHOOK_SECRET,
  KUEUE_WEBHOOK_SERVICE,
  kueueCrd,
  kueueWebhooks,
  type WebhookConfiguration,
  type WebhookEndpoint,
} from './kueue-manifests';

/** The daemon's name: its pid file, log and binary are named after it. */
export const KUEUE_NAME = 'kueue';

export interface KueuePorts {
  /** Kueue's webhook server (HTTPS, called by the API server). */
  webhook: number;
  /** /healthz and /readyz. */
  health: number;
}

export function kueuePorts(env: NodeJS.ProcessEnv = process.env): KueuePorts {
  return {
    webhook: portFromEnv(env, 'KPM_KUEUE_WEBHOOK_PORT', 16482),
    health: portFromEnv(env, 'KPM_KUEUE_HEALTH_PORT', 16481),
  };
}

/** Whether the stack's Kueue runs (in this KPM_HOME): a stack that was asked for it keeps it. */
export function kueueRunning(): boolean {
  return new Daemon(KUEUE_NAME).isRunning();
}

export interface KueueOptions {
  /** The admin's endpoint: Kueue's CRDs, webhooks and Secret are applied with it. */
  endpoint: () => KubeEndpoint;
  ports?: Partial<KueuePorts>;
  progress?: Progress;
}

/** Server-side apply as the stack's provisioning: what it sets is its own, forced. */
const APPLY = '?fieldManager=kpm-stack&force=true';
const APPLY_TYPE = 'application/apply-patch+yaml';

/**
 * Kueue (sigs.k8s.io/kueue) beside the API server, `go install`ed from the Go module proxy, with
 * only its plain-pod integration on: for kpm's pod groups (docs/design.md §4 "Kueue pod groups").
 * Its CRDs and webhooks come from Kueue's own manifests (kueue-manifests.ts), reached on
 * 127.0.0.1. Kueue's certificate rotator is kept (turning it off makes Kueue read its metrics
 * certificate from a fixed path under /etc): it finds the Secret kpm made valid for its Service
 * name and keeps it, and the same certificate is valid for 127.0.0.1, where the API server calls.
 */
export class KueueComponent extends DaemonComponent {
  readonly ports: KueuePorts;

  constructor(private readonly options: KueueOptions) {
    super(
      KUEUE_NAME,
      options.progress ?? ((message: string) => process.stderr.write(`kpm: ${message}\n`)),
    );
    this.ports = { ...kueuePorts(), ...options.ports };
  }

  async prepare(): Promise<void> {
    await this.binary();
  }

  async up(): Promise<StackEnv> {
    const binary = await this.binary();
    const manifests = await this.moduleDir();
    const certs = this.ensureCertificates();
    const endpoint = this.options.endpoint();
    const webhook: WebhookEndpoint = {
      baseUrl: `https://127.0.0.1:${this.ports.webhook}`,
      caBundle: readFileSync(join(certs, 'ca.crt')).toString('base64'),
    };
    await this.applyCrds(endpoint, manifests, webhook);
    await this.applySecret(endpoint);
    await this.applyWebhooks(endpoint, manifests, webhook);
    const config = `${JSON.stringify(this.config(certs), null, 2)}\n`;
    const configFile = join(stackPaths.data(KUEUE_NAME), 'config.yaml');
    writeFileSync(configFile, config);
    const args = [`--config=${configFile}`, `--kubeconfig=${kubeconfigPath()}`];
    await startOrRestart(this.daemon, binary, args, this.progress, [config, webhook.caBundle]);
    await this.waitReady(KUEUE_NAME, () => this.probe(), { timeoutMs: 60000, intervalMs: 250 });
    return { KPM_KUEUE_VERSION: KUEUE_VERSION };
  }

  /**
   * Kueue's configuration: the pod integration alone, one replica, no metrics or visibility
   * server, a faster API client.
   */
  config(certDir: string): object {
    return {
      apiVersion: 'config.kueue.x-k8s.io/v1beta2',
      kind: 'Configuration',
      namespace: KUEUE_NAMESPACE,
      health: { healthProbeBindAddress: `127.0.0.1:${this.ports.health}` },
      metrics: { bindAddress: '0' },
      webhook: { port: this.ports.webhook, host: '127.0.0.1', certDir },
      leaderElection: { leaderElect: false },
      internalCertManagement: {
        enable: true,
        webhookServiceName: KUEUE_WEBHOOK_SERVICE,
        webhookSecretName: KUEUE_WEBHOOK_SECRET,
      },
      // The visibility server would ask for an APIService and a port of its own.
      featureGates: { VisibilityOnDemand: false },
      integrations: { frameworks: ['pod'] },
      // Kueue's default (50/s, burst 100) bounds how fast it lifts a group's gates: a 200-pod
      // group waited 10.5 s to be admitted (bench/README.md, "Kueue pod groups").
      clientConnection: { qps: 500, burst: 1000 },
    };
  }

  private binary(): Promise<string> {
    return ensureGoInstall(
      { name: KUEUE_NAME, version: KUEUE_VERSION, pkg: 'sigs.k8s.io/kueue/cmd/kueue' },
      this.progress,
    );
  }

  /** Kueue's module in Go's module cache (the install fetched it): its `config/components`. */
  private async moduleDir(): Promise<string> {
    const go = process.env.KPM_GO ?? 'go';
    const out = await runCommand(
      go,
      ['mod', 'download', '-json', `sigs.k8s.io/kueue@${KUEUE_VERSION}`],
      {
        cwd: stackPaths.home(),
      },
    );
    const dir = (JSON.parse(out) as { Dir?: string }).Dir;
    if (!dir) throw new Error(`kpm: go mod download named no directory for Kueue: ${out}`);
    return join(dir, 'config', 'components');
  }

  /**
   * The webhook's CA (RSA in PKCS#1, as Kueue's rotator parses it; valid for the CA name it
   * checks) and the serving certificate: Kueue's Service name, which the rotator checks, and
   * 127.0.0.1, where the API server calls. Made once; the certificate directory Kueue serves
   * from holds what a pod would have mounted from the Secret.
   */
  private ensureCertificates(): string {
    const dir = join(stackPaths.data(KUEUE_NAME), 'pki');
    const certs = join(stackPaths.data(KUEUE_NAME), 'certs');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    mkdirSync(certs, { recursive: true, mode: 0o700 });
    const ca = { dir, caCert: join(dir, 'ca.crt'), caKey: join(dir, 'ca.key') };
    if (!existsSync(ca.caCert) || !existsSync(ca.caKey)) {
      openssl(dir, ['genrsa', '-traditional', '-out', ca.caKey, '2048']);
      // prettier-ignore
      openssl(dir, [
        'req', '-x509', '-new', '-key', ca.caKey, '-out', ca.caCert, '-days', '3650',
        '-subj', `/O=kueue/CN=${KUEUE_CA_NAME}`,
        '-addext', `subjectAltName=DNS:${KUEUE_CA_NAME}`,
        '-addext', 'basicConstraints=critical,CA:TRUE',
        '-addext', 'keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign',
      ]);
      // A new CA: the certificate it did not sign is issued again.
      for (const file of ['tls.crt', 'tls.key']) rmSync(join(dir, file), { force: true });
    }
    const cert = join(dir, 'tls.crt');
    const key = join(dir, 'tls.key');
    if (!existsSync(cert) || !existsSync(key))
      issueCertificate(ca, {
        cert,
        key,
        subject: `/CN=${KUEUE_WEBHOOK_DNS}`,
        usage: 'serverAuth',
        sans: [`DNS:${KUEUE_WEBHOOK_DNS}`, 'IP:127.0.0.1'],
      });
    for (const file of ['ca.crt', 'tls.crt', 'tls.key'])
      copyFileSync(join(dir, file), join(certs, file));
    return certs;
  }

  private async applyCrds(
    endpoint: KubeEndpoint,
    manifests: string,
    webhook: WebhookEndpoint,
  ): Promise<void> {
    const dir = join(manifests, 'crd', 'bases');
    const names: string[] = [];
    for (const file of readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .sort()) {
      for (const crd of readYaml<Parameters<typeof kueueCrd>[0]>(join(dir, file))) {
        const name = crd.metadata.name;
        const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}${APPLY}`;
        await expectOk(
          `CRD ${name}`,
          kubeCall(endpoint, 'PATCH', path, kueueCrd(crd, webhook), APPLY_TYPE),
        );
        names.push(name);
      }
    }
    await this.waitReady('Kueue CRDs established', () => established(endpoint, names), {
      timeoutMs: 30000,
      intervalMs: 200,
    });
  }

  /** The Secret the rotator reads: kpm's CA and certificate, which it then keeps. */
  private async applySecret(endpoint: KubeEndpoint): Promise<void> {
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: KUEUE_NAMESPACE } };
    await expectOk(
      `namespace ${KUEUE_NAMESPACE}`,
      kubeCall(
        endpoint,
        'PATCH',
        `/api/v1/namespaces/${KUEUE_NAMESPACE}${APPLY}`,
        namespace,
        APPLY_TYPE,
      ),
    );
    const pki = join(stackPaths.data(KUEUE_NAME), 'pki');
    const data = Object.fromEntries(
      ['ca.crt', 'ca.key', 'tls.crt', 'tls.key'].map((file) => [
        file,
        readFileSync(join(pki, file)).toString('base64'),
      ]),
    );
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: KUEUE_WEBHOOK_SECRET, namespace: KUEUE_NAMESPACE },
      data,
    };
    const path = `/api/v1/namespaces/${KUEUE_NAMESPACE}/secrets/${KUEUE_WEBHOOK_SECRET}${APPLY}`;
    await expectOk('Kueue webhook Secret', kubeCall(endpoint, 'PATCH', path, secret, APPLY_TYPE));
  }

  private async applyWebhooks(
    endpoint: KubeEndpoint,
    manifests: string,
    webhook: WebhookEndpoint,
  ): Promise<void> {
    const upstream = readYaml<WebhookConfiguration>(join(manifests, 'webhook', 'manifests.yaml'));
    for (const configuration of kueueWebhooks(upstream, webhook)) {
      const plural =
        configuration.kind === 'MutatingWebhookConfiguration'
          ? 'mutatingwebhookconfigurations'
          : 'validatingwebhookconfigurations';
      const path = `/apis/admissionregistration.k8s.io/v1/${plural}/${configuration.metadata.name}${APPLY}`;
      await expectOk(
        configuration.metadata.name,
        kubeCall(endpoint, 'PATCH', path, configuration, APPLY_TYPE),
      );
    }
  }

  protected describe(ready: boolean): string {
    return ready
      ? `pod groups admitted (webhook https://127.0.0.1:${this.ports.webhook}), ${KUEUE_VERSION}`
      : 'not ready';
  }

  /** Ready once its certificates are in place and its webhook server listens. */
  protected async probe(): Promise<boolean> {
    this.assertRunning();
    const result = await httpCall(`http://127.0.0.1:${this.ports.health}/readyz`, {
      timeoutMs: 2000,
    }).catch(() => undefined);
    return result?.status === 200;
  }
}

function readYaml<T>(file: string): T[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((doc) => doc.toJS() as T)
    .filter((doc) => doc !== null && doc !== undefined);
}

async function expectOk(
  what: string,
  call: Promise<{ status: number; body: string }>,
): Promise<void> {
  const { status, body } = await call;
  if (status < 200 || status >= 300)
    throw new Error(`kpm: applying Kueue's ${what} failed: HTTP ${status} ${body.slice(0, 500)}`);
}

async function established(endpoint: KubeEndpoint, names: readonly string[]): Promise<boolean> {
  for (const name of names) {
    const read = await kubeCall(
      endpoint,
      'GET',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
    );
    if (read.status !== 200) return false;
    const crd = JSON.parse(read.body) as {
      status?: { conditions?: { type: string; status: string }[] };
    };
    if (!crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'))
      return false;
  }
  return true;
}
