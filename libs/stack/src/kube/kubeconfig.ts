import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stackPaths } from '../paths';
import type { KubeEndpoint } from './kube-http';

export const KUBE_CONTEXT = 'kpm-local';

export function kubeconfigPath(): string {
  return join(stackPaths.home(), 'kubeconfig');
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
