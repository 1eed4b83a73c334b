import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AuthorizationV1Api,
  CoreV1Api,
  KubeConfig,
  type V1ResourceAttributes,
} from '@kubernetes/client-node';
import { parseAllDocuments, stringify } from 'yaml';
import { renderKubeconfig } from '@kpm/stack';
import { repoRoot } from '@kpm/stack/paths';

/** The kit's directory and what `kubectl kustomize` renders (base and every overlay). */
export const DEPLOY_DIR = join(__dirname, '..', '..', 'deploy');
export const KIT_DIRS = ['base', 'overlays/local', 'overlays/production'] as const;
export const KIT_NAMESPACE = 'kpm-system';

/** Each service's ServiceAccount in the kit. */
export const SERVICE_ACCOUNTS = {
  'boot-worker': 'kpm-boot-worker',
  watcher: 'kpm-watcher',
  state: 'kpm-state',
  'drunc-gateway': 'kpm-drunc-gateway',
} as const;
export type KpmService = keyof typeof SERVICE_ACCOUNTS;

/** What the suites read of a rendered object; the rest is reached through `any`-free lookups. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** The kinds that make up the kit's identities and their permissions. */
const RBAC_KINDS = new Set([
  'Namespace',
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
]);

/**
 * Runs kubectl (`KPM_KUBECTL`, else the one on PATH, installed from Debian's `kubernetes-client`
 * by scripts/debian-package.sh when missing) and returns its standard output; a failure carries
 * kubectl's own message.
 */
export function kubectl(args: string[], options: { kubeconfig?: string; input?: string } = {}) {
  const result = spawnSync(kubectlBinary(), args, {
    encoding: 'utf8',
    input: options.input,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, ...(options.kubeconfig ? { KUBECONFIG: options.kubeconfig } : {}) },
  });
  if (result.status !== 0) {
    throw new Error(`kubectl ${args.join(' ')} exited ${result.status}:\n${result.stderr}`);
  }
  return { stdout: result.stdout, stderr: result.stderr };
}

let kubectlPath: string | undefined;

function kubectlBinary(): string {
  if (process.env.KPM_KUBECTL) return process.env.KPM_KUBECTL;
  if (kubectlPath) return kubectlPath;
  const script = join(repoRoot(), 'scripts', 'debian-package.sh');
  const found = spawnSync(script, ['kubernetes-client', 'kubectl'], { encoding: 'utf8' });
  if (found.status !== 0)
    throw new Error(`kubectl is missing and was not installed:\n${found.stderr}`);
  kubectlPath = found.stdout.trim();
  return kubectlPath;
}

/** `kubectl kustomize deploy/<dir>`, parsed. */
export function renderKit(dir: string): KubeObject[] {
  const { stdout } = kubectl(['kustomize', join(DEPLOY_DIR, dir)]);
  return parseAllDocuments(stdout)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

/** Applies the local overlay's Namespace, ServiceAccounts and RBAC (idempotent) as the admin. */
export function applyKitRbac(adminKubeconfig: string): KubeObject[] {
  const objects = renderKit('overlays/local').filter((object) => RBAC_KINDS.has(object.kind));
  const input = objects.map((object) => stringify(object)).join('---\n');
  kubectl(['apply', '-f', '-'], { kubeconfig: adminKubeconfig, input });
  return objects;
}

/** The admin's KubeConfig of the local stack. */
export function adminKubeConfig(path: string | undefined): KubeConfig {
  const config = new KubeConfig();
  if (path) config.loadFromFile(path);
  else config.loadFromDefault();
  return config;
}

/** The user name Kubernetes gives a ServiceAccount's tokens. */
export function serviceAccountUser(account: string, namespace = KIT_NAMESPACE): string {
  return `system:serviceaccount:${namespace}:${account}`;
}

/**
 * Mints a token for the ServiceAccount (TokenRequest, as the kubelet does for a pod) and writes a
 * kubeconfig holding it, so a service started with it acts under that identity only.
 */
export async function serviceAccountKubeconfig(
  admin: KubeConfig,
  account: string,
  file: string,
): Promise<string> {
  const core = admin.makeApiClient(CoreV1Api);
  const request = await core.createNamespacedServiceAccountToken({
    name: account,
    namespace: KIT_NAMESPACE,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const token = request.status?.token;
  if (!token) throw new Error(`no token minted for ${account}`);
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('the admin kubeconfig names no cluster');
  const ca = cluster.caData
    ? Buffer.from(cluster.caData, 'base64').toString('utf8')
    : readFileSync(cluster.caFile!, 'utf8');
  writeFileSync(file, renderKubeconfig({ server: cluster.server, ca, token }, account), {
    mode: 0o600,
  });
  return file;
}

/** Whether the ServiceAccount may do `attributes` (a SubjectAccessReview, asked as the admin). */
export async function serviceAccountMay(
  admin: KubeConfig,
  account: string,
  attributes: V1ResourceAttributes,
): Promise<boolean> {
  const review = await admin.makeApiClient(AuthorizationV1Api).createSubjectAccessReview({
    body: {
      spec: {
        user: serviceAccountUser(account),
        // The groups every ServiceAccount token carries, so group-wide grants count too.
        groups: [
          'system:serviceaccounts',
          `system:serviceaccounts:${KIT_NAMESPACE}`,
          'system:authenticated',
        ],
        resourceAttributes: attributes,
      },
    },
  });
  return review.status?.allowed === true;
}
