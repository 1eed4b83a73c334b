/**
 * Where the API server is and how kpm authenticates to it, read the way client-go and
 * client-node read it: an explicit kubeconfig, else $KUBECONFIG, else ~/.kube/config, else the
 * pod's service account (in-cluster). The usual forms are handled here — a CA, a client
 * certificate and key, a bearer token, a token file (re-read every minute: projected tokens
 * rotate) — without loading @kubernetes/client-node, whose generated API alone holds tens of
 * megabytes. A kubeconfig that needs more (an exec plugin, an auth provider, a proxy, basic
 * auth, impersonation, several files to merge) is handed to client-node's KubeConfig (kube-http
 * loads it only then).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { Agent } from 'node:http';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { isIPv6 } from 'node:net';
import { parse } from 'yaml';

export interface KubeTls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized: boolean;
  servername?: string;
}

export interface KubeConnection {
  /** The API server's URL, e.g. `https://127.0.0.1:16443` (no trailing slash). */
  server: string;
  tls: KubeTls;
  /** The Authorization header for the next request, if any. */
  authorization(): string | undefined | Promise<string | undefined>;
  /** An agent of its own (a proxy's); else kube-http keeps one from `tls`. */
  agent?: Agent;
}

/** What only client-node's KubeConfig can read: the file to give it (undefined: its defaults). */
export interface DelegatedKubeconfig {
  delegate: true;
  path?: string;
  why: string;
}

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';
/** How often a token file is read again (client-go and client-node: every minute). */
const TOKEN_FILE_REFRESH_MS = 60_000;

interface KubeconfigFile {
  'current-context'?: string;
  clusters?: Array<{ name: string; cluster?: Record<string, unknown> }>;
  users?: Array<{ name: string; user?: Record<string, unknown> }>;
  contexts?: Array<{ name: string; context?: { cluster?: string; user?: string } }>;
}

/** Where the defaults are looked for (tests point them elsewhere). */
export interface KubeDefaults {
  env: NodeJS.ProcessEnv;
  home: string;
  serviceAccount: string;
}

/** The connection of `path`, else of the environment's defaults (client-go's order). */
export function loadKubeConnection(
  path?: string,
  defaults: KubeDefaults = { env: process.env, home: homedir(), serviceAccount: SERVICE_ACCOUNT },
): KubeConnection | DelegatedKubeconfig {
  if (path) return fromFile(path);
  const fromEnv = (defaults.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (fromEnv.length > 1) return { delegate: true, why: 'KUBECONFIG names several files' };
  if (fromEnv.length === 1) return fromFile(fromEnv[0]);
  const home = join(defaults.home, '.kube', 'config');
  if (existsSync(home)) return fromFile(home);
  if (existsSync(join(defaults.serviceAccount, 'token'))) return inCluster(defaults);
  return {
    server: 'http://localhost:8080',
    tls: { rejectUnauthorized: true },
    authorization: none,
  };
}

function none(): undefined {
  return undefined;
}

function fromFile(path: string): KubeConnection | DelegatedKubeconfig {
  const config = (parse(readFileSync(path, 'utf8')) ?? {}) as KubeconfigFile;
  const contextName = config['current-context'];
  const context = config.contexts?.find((c) => c.name === contextName)?.context;
  if (!context) throw new Error(`kubeconfig ${path}: no current context`);
  const cluster = config.clusters?.find((c) => c.name === context.cluster)?.cluster;
  const server = optionalString(cluster?.server)?.replace(/\/+$/, '');
  if (!cluster || !server) throw new Error(`kubeconfig ${path}: no server for the current context`);
  const user = config.users?.find((u) => u.name === context.user)?.user ?? {};
  const unsupported = ['exec', 'auth-provider', 'username', 'as', 'as-groups'].find(
    (field) => user[field] !== undefined,
  );
  if (unsupported || cluster['proxy-url'] !== undefined) {
    const why = unsupported ? `its user has ${unsupported}` : 'its cluster has a proxy-url';
    return { delegate: true, path, why };
  }
  const base = dirname(path);
  const tls: KubeTls = {
    ca: material(base, cluster, 'certificate-authority'),
    cert: material(base, user, 'client-certificate'),
    key: material(base, user, 'client-key'),
    rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
    servername: optionalString(cluster['tls-server-name']),
  };
  const token = optionalString(user.token);
  if (token) return { server, tls, authorization: () => `Bearer ${token}` };
  const tokenFile = optionalString(user.tokenFile) ?? optionalString(user['token-file']);
  if (tokenFile) return { server, tls, authorization: bearerFromFile(resolve(base, tokenFile)) };
  return { server, tls, authorization: none };
}

/** The pod's service account, as client-go's rest.InClusterConfig reads it. */
function inCluster({ env, serviceAccount }: KubeDefaults): KubeConnection {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new Error('in-cluster: KUBERNETES_SERVICE_HOST/PORT are not set');
  const scheme = ['80', '8080', '8001'].includes(port) ? 'http' : 'https';
  return {
    server: `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    tls: { ca: readFileSync(join(serviceAccount, 'ca.crt')), rejectUnauthorized: true },
    authorization: bearerFromFile(join(serviceAccount, 'token')),
  };
}

/** A token read from its file, again once a minute has passed and the file changed. */
export function bearerFromFile(
  path: string,
  now: () => number = Date.now,
): () => string | undefined {
  let token = '';
  let readAt = -Infinity;
  let modifiedAt = -1;
  return () => {
    if (now() - readAt >= TOKEN_FILE_REFRESH_MS) {
      readAt = now();
      const modified = statSync(path).mtimeMs;
      if (modified !== modifiedAt) {
        token = readFileSync(path, 'utf8').trim();
        modifiedAt = modified;
      }
    }
    return token ? `Bearer ${token}` : undefined;
  };
}

/** `<field>-data` (base64) or `<field>` (a file, relative to the kubeconfig's directory). */
function material(base: string, entry: Record<string, unknown>, field: string): Buffer | undefined {
  const data = optionalString(entry[`${field}-data`]);
  if (data) return Buffer.from(data, 'base64');
  const file = optionalString(entry[field]);
  return file ? readFileSync(resolve(base, file)) : undefined;
}

function resolve(base: string, file: string): string {
  return isAbsolute(file) ? file : join(base, file);
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
