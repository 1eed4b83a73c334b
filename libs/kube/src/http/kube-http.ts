/**
 * kpm's one HTTP client of the API server. `httpCall` is the request itself: a CA, a bearer token
 * (or any Authorization), a content type (JSON, or a patch's kind), a kept-alive connection and a
 * deadline; it resolves with any status and rejects only on transport errors (a refused
 * connection, the deadline). On it:
 * - `KubeHttp`, the services' client: JSON in, JSON out, over one keep-alive agent from a
 *   kubeconfig. Bodies are written with JSON.stringify and read with JSON.parse, as the API server
 *   speaks them: objects come back plain (timestamps are strings), as a watch delivers them. A
 *   failed call throws a {@link KubeApiError} carrying the status and the body, which kube-errors
 *   classifies (as it did client-node's ApiException).
 * - `kubeCall`, the stack's provisioning calls as its admin ({@link KubeEndpoint}), which read the
 *   status themselves (a 409 of a create, a 404 of an uncordon are answers, not failures).
 */
import http, { type Agent, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { inSpan, SpanKind } from '@kpm/tracing';
import {
  loadKubeConnection,
  type DelegatedKubeconfig,
  type KubeConnection,
} from './kube-connection';
import { deadlinePassed, Http2Connection, http2Call } from './kube-http2';

/** An API call that the server answered with a status outside 2xx. */
export class KubeApiError extends Error {
  constructor(
    /** The HTTP status (kube-errors reads `code`). */
    readonly code: number,
    /** The response body, usually a Status object as JSON. */
    readonly body: string,
  ) {
    super(`HTTP ${code}: ${body.slice(0, 300)}`);
    this.name = 'KubeApiError';
  }
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface HttpResult {
  status: number;
  body: string;
}

export interface HttpCallOptions {
  method?: string;
  /** Written as JSON. */
  body?: unknown;
  /** Of the body: JSON unless a patch names its kind (`application/merge-patch+json`). */
  contentType?: string;
  /** Sent as `Bearer <token>`. */
  token?: string;
  /** The Authorization header as it is (a kubeconfig's connection makes it); before `token`. */
  authorization?: string;
  /** PEM of the CA that signed the serving certificate (with Node's kept-alive global agent). */
  ca?: string | Buffer;
  /** An agent of the caller's (KubeHttp's); else Node's global one, which keeps connections. */
  agent?: Agent;
  /** The deadline of the whole call, the last byte of the answer included. */
  timeoutMs?: number;
}

/** Provisioning's calls are small and local: one that takes longer has a dead connection. */
const DEFAULT_TIMEOUT_MS = 5000;

/**
 * One HTTP(S) request with a deadline: resolves with any status, rejects on transport errors (a
 * refused or dropped connection; the deadline, as a TimeoutError kube-errors calls retryable).
 */
export async function httpCall(
  url: string | URL,
  options: HttpCallOptions = {},
): Promise<HttpResult> {
  const target = typeof url === 'string' ? new URL(url) : url;
  const method = options.method ?? 'GET';
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (payload !== undefined) {
    headers['Content-Type'] = options.contentType ?? 'application/json';
    // Always a length: Node sends a DELETE's body neither chunked nor measured, so the server
    // would read it as the start of the next request on the kept-alive connection (400).
    headers['Content-Length'] = String(Buffer.byteLength(payload));
  }
  const authorization =
    options.authorization ?? (options.token ? `Bearer ${options.token}` : undefined);
  if (authorization) headers.Authorization = authorization;
  const transport = target.protocol === 'https:' ? https : http;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = transport.request(target, {
        method,
        headers,
        agent: options.agent,
        ca: options.ca,
        signal,
      });
      req.once('response', resolve).on('error', reject);
      req.end(payload);
    });
    return { status: response.statusCode ?? 0, body: await readAll(response) };
  } catch (error) {
    if (!signal.aborted) throw error;
    throw deadlinePassed(method, target, timeoutMs, error);
  }
}

/** The API server as the stack's provisioning reaches it: as its admin, by a bearer token. */
export interface KubeEndpoint {
  server: string;
  /** PEM of the CA that signed the serving certificate. */
  ca: string;
  token: string;
}

/** A call to the API server as the endpoint's user; any status is the caller's to read. */
export function kubeCall(
  endpoint: KubeEndpoint,
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
): Promise<HttpResult> {
  return httpCall(`${endpoint.server}${path}`, {
    method,
    body,
    contentType,
    ca: endpoint.ca,
    token: endpoint.token,
  });
}

export interface KubeRequest {
  query?: Query;
  body?: unknown;
  /** Of the body: JSON unless a patch names its kind. */
  contentType?: string;
  /** The response is text (a pod's log), not JSON. */
  text?: boolean;
}

export interface KubeHttpOptions {
  /**
   * Calls as streams of one HTTP/2 connection, as client-go makes them; else (the services') one
   * kept-alive HTTP/1.1 connection per call in flight. Watches stay on HTTP/1.1. Measured no
   * faster against a local API server (bench/README.md "The Kubernetes client"), so not a setting.
   */
  http2?: boolean;
}

export class KubeHttp {
  private readonly connection: Promise<KubeConnection>;
  private agent?: Agent;
  private h2?: Http2Connection;

  constructor(
    source: KubeConnection | DelegatedKubeconfig,
    private readonly timeoutMs: number,
    private readonly options: KubeHttpOptions = {},
  ) {
    this.connection = 'delegate' in source ? delegated(source) : Promise.resolve(source);
    // An unhandled rejection here would be reported again by every call; each call reports it.
    this.connection.catch(() => undefined);
  }

  /** From the kubeconfig at `path`, else the environment's (see kube-connection.ts). */
  static load(path: string | undefined, timeoutMs: number): KubeHttp {
    return new KubeHttp(loadKubeConnection(path), timeoutMs);
  }

  /** Closes the HTTP/2 connection, if one is open (kept-alive HTTP/1.1 sockets close when idle). */
  close(): void {
    this.h2?.close();
  }

  /** One call, a span of its own when tracing is on (`kube <METHOD> <resource>`). */
  request<T>(method: string, path: string, request: KubeRequest = {}): Promise<T> {
    return inSpan(
      `kube ${method} ${resourceOf(path)}`,
      { kind: SpanKind.CLIENT, attributes: { 'http.request.method': method, 'url.path': path } },
      async (span) => {
        const { target, authorization, agent, h2 } = await this.prepare(path, request.query);
        const call = {
          method,
          body: request.body,
          contentType: request.contentType,
          authorization,
          timeoutMs: this.timeoutMs,
        };
        const { status, body } = h2
          ? await http2Call(h2, target, call)
          : await httpCall(target, { ...call, agent });
        span?.setAttribute('http.response.status_code', status);
        if (status < 200 || status >= 300) throw new KubeApiError(status, body);
        return (request.text ? body : JSON.parse(body)) as T;
      },
    );
  }

  /** A streaming GET (a watch): the response once its headers arrived, whatever its status. */
  async stream(path: string, query: Query, signal: AbortSignal): Promise<IncomingMessage> {
    const { target, authorization, agent } = await this.prepare(path, query);
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (authorization) headers.Authorization = authorization;
    const transport = target.protocol === 'https:' ? https : http;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = transport.request(target, { method: 'GET', headers, agent, signal });
      // Errors after the response (an abort) are the response's to report: never unhandled.
      req.once('response', resolve).on('error', reject);
      req.end();
    });
  }

  private async prepare(path: string, query: Query = {}) {
    const connection = await this.connection;
    const target = new URL(connection.server + path);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) target.searchParams.set(key, String(value));
    }
    const authorization = await connection.authorization();
    const secure = target.protocol === 'https:';
    this.agent ??= connection.agent ?? keepAliveAgent(connection, secure);
    // HTTP/2 over TLS (ALPN) to the server itself; a connection with an agent of its own (a
    // proxy's) keeps it.
    if (this.options.http2 && secure && !connection.agent) {
      this.h2 ??= new Http2Connection(target.origin, connection.tls);
    }
    return { target, authorization, agent: this.agent, h2: this.h2 };
  }
}

/** One agent for every call: connections are kept and reused (no TLS handshake per call). */
function keepAliveAgent(connection: KubeConnection, secure: boolean): Agent {
  if (!secure) return new http.Agent({ keepAlive: true });
  const { ca, cert, key, rejectUnauthorized, servername } = connection.tls;
  return new https.Agent({ keepAlive: true, ca, cert, key, rejectUnauthorized, servername });
}

/** The whole body; a response cut short (the deadline, a dropped connection) rejects. */
function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    response.once('close', () => {
      if (response.complete) return;
      const error = new Error('the response was cut short');
      error.name = 'AbortError';
      reject(error);
    });
  });
}

/**
 * A kubeconfig only client-node reads (an exec plugin, say): its KubeConfig, loaded now, applies
 * the credentials to every call (an exec token is refreshed as it expires).
 */
async function delegated(source: DelegatedKubeconfig): Promise<KubeConnection> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const config = new KubeConfig();
  if (source.path) config.loadFromFile(source.path);
  else config.loadFromDefault();
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new Error(`the kubeconfig names no current cluster (${source.why})`);
  const first: https.RequestOptions = { headers: {} };
  await config.applyToHTTPSOptions(first);
  const { ca, cert, key, rejectUnauthorized, servername } = first;
  return {
    server: cluster.server.replace(/\/+$/, ''),
    tls: {
      ca: ca as Buffer | undefined,
      cert: cert as Buffer | undefined,
      key: key as Buffer | undefined,
      rejectUnauthorized: rejectUnauthorized !== false,
      servername,
    },
    agent: first.agent instanceof http.Agent ? first.agent : undefined,
    authorization: async () => {
      const options: https.RequestOptions = { headers: {} };
      await config.applyToHTTPSOptions(options);
      const value = (options.headers as Record<string, unknown>).Authorization;
      return typeof value === 'string' ? value : undefined;
    },
  };
}

/**
 * The kind of object a path names, for a span's name without names in it:
 * `/api/v1/namespaces/s1/pods/p1/log` → `pods/log`, `/api/v1/nodes` → `nodes`.
 */
export function resourceOf(path: string): string {
  const parts = path.split('?')[0].split('/').filter(Boolean);
  // /api/v1/… or /apis/<group>/<version>/…; then namespaces/<ns>/ when namespaced
  let rest = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
  if (rest[0] === 'namespaces' && rest.length > 2) rest = rest.slice(2);
  const [resource, , subresource] = rest;
  if (!resource) return parts.join('/') || '/';
  return subresource ? `${resource}/${subresource}` : resource;
}
