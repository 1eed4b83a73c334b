import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stackPaths } from '../paths';
import { stringify } from 'yaml';
import type { KubeEndpoint } from '@kpm/kube';

export const KUBE_CONTEXT = 'kpm-local';

export function kubeconfigPath(): string {
  return join(stackPaths.home(), 'kubeconfig');
}

/** A client certificate's kubeconfig (the real node's kubelet, kwok), the CA and keys as files. */
export function certificateKubeconfig(identity: {
  server: string;
  caFile: string;
  user: string;
  cert: string;
  key: string;
  context: string;
}): string {
  const { server, caFile, user, cert, key, context } = identity;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: KUBE_CONTEXT, cluster: { server, 'certificate-authority': caFile } }],
    users: [{ name: user, user: { 'client-certificate': cert, 'client-key': key } }],
    contexts: [{ name: context, context: { cluster: KUBE_CONTEXT, user } }],
    'current-context': context,
  });
}

/** The kubeconfig for the admin identity; YAML by hand (JSON is YAML, but humans read this file). */
export function renderKubeconfig(endpoint: KubeEndpoint, user = 'kpm-admin'): string {
  const ca = Buffer.from(endpoint.ca, 'utf8').toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `  - name: ${KUBE_CONTEXT}`,
    '    cluster:',
    `      server: ${endpoint.server}`,
    `      certificate-authority-data: ${ca}`,
    'users:',
    `  - name: ${user}`,
    '    user:',
    `      token: ${endpoint.token}`,
    'contexts:',
    `  - name: ${KUBE_CONTEXT}`,
    '    context:',
    `      cluster: ${KUBE_CONTEXT}`,
    `      user: ${user}`,
    '      namespace: default',
    `current-context: ${KUBE_CONTEXT}`,
    '',
  ].join('\n');
}

/** Writes `.kpm/kubeconfig` (mode 0600: it holds the admin token) when its content changed. */
export function writeKubeconfig(endpoint: KubeEndpoint, file: string = kubeconfigPath()): string {
  const content = renderKubeconfig(endpoint);
  let current: string | undefined;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  if (current !== content) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return file;
}
