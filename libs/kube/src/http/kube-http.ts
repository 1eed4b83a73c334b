/**
 * kpm's HTTP client of the API server: JSON in, JSON out, over one keep-alive agent, every call
 * bounded by a timeout. Bodies are written with JSON.stringify and read with JSON.parse, as the
 * API server speaks them: objects come back plain (timestamps are strings), as a watch delivers
 * them. A failed call throws a {@link KubeApiError} carrying the status and the body, which
 * kube-errors classifies (as it did client-node's ApiException).
 */
import http, { type Agent, type IncomingMessage } from 'node:http';
import https from 'node:https';
import {
  loadKubeConnection,
  type DelegatedKubeconfig,
  type KubeConnection,
} from './kube-connection';

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

export interface KubeRequest {
  query?: Query;
  body?: unknown;
  /** Of the body: JSON unless a patch names its kind. */
  contentType?: string;
  /** The response is text (a pod's log), not JSON. */
  text?: boolean;
}

export class KubeHttp {
  private readonly connection: Promise<KubeConnection>;
  private agent?: Agent;

  constructor(
    source: KubeConnection | DelegatedKubeconfig,
    private readonly timeoutMs: number,
  ) {
    this.connection = 'delegate' in source ? delegated(source) : Promise.resolve(source);
    // An unhandled rejection here would be reported again by every call; each call reports it.
    this.connection.catch(() => undefined);
  }

  /** From the kubeconfig at `path`, else the environment's (see kube-connection.ts). */
  static load(path: string | undefined, timeoutMs: number): KubeHttp {
    return new KubeHttp(loadKubeConnection(path), timeoutMs);
  }

  async request<T>(method: string, path: string, request: KubeRequest = {}): Promise<T> {
    const { target, options, transport } = await this.prepare(method, path, request.query);
    const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
    if (payload !== undefined) {
      options.headers['Content-Type'] = request.contentType ?? 'application/json';
      // Always a length: Node sends a DELETE's body neither chunked nor measured otherwise.
      options.headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = transport.request(target, { ...options, signal: timeout(this.timeoutMs) });
      req.once('response', resolve).on('error', reject);
      req.end(payload);
    });
    const text = await readAll(response);
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) throw new KubeApiError(status, text);
    return (request.text ? text : JSON.parse(text)) as T;
  }

  /** A streaming GET (a watch): the response once its headers arrived, whatever its status. */
  async stream(path: string, query: Query, signal: AbortSignal): Promise<IncomingMessage> {
    const { target, options, transport } = await this.prepare('GET', path, query);
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = transport.request(target, { ...options, signal });
      // Errors after the response (an abort) are the response's to report: never unhandled.
      req.once('response', resolve).on('error', reject);
      req.end();
    });
  }

  private async prepare(method: string, path: string, query: Query = {}) {
    const connection = await this.connection;
    const target = new URL(connection.server + path);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) target.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { Accept: 'application/json' };
    const authorization = await connection.authorization();
    if (authorization) headers.Authorization = authorization;
    const secure = target.protocol === 'https:';
    this.agent ??= connection.agent ?? keepAliveAgent(connection, secure);
    const options = { method, headers, agent: this.agent };
    return { target, options, transport: secure ? https : http };
  }
}

/** One agent for every call: connections are kept and reused (no TLS handshake per call). */
function keepAliveAgent(connection: KubeConnection, secure: boolean): Agent {
  if (!secure) return new http.Agent({ keepAlive: true });
  const { ca, cert, key, rejectUnauthorized, servername } = connection.tls;
  return new https.Agent({ keepAlive: true, ca, cert, key, rejectUnauthorized, servername });
}

function timeout(ms: number): AbortSignal {
  return AbortSignal.timeout(ms);
}

/** The whole body; a response cut short (the timeout, a dropped connection) rejects. */
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
