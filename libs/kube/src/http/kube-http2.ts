/**
 * The API server over one HTTP/2 connection, as client-go speaks to it: every call a stream of
 * the same TLS session instead of one kept-alive HTTP/1.1 connection per call in flight.
 * `KubeHttp` uses it when asked (`http2: true`); bench/kube-http measures the two side by side
 * against client-go.
 */
import http2, {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  type OutgoingHttpHeaders,
} from 'node:http2';
import type { KubeTls } from './kube-connection';

/** What `http2Call` sends: `httpCall`'s options, less the agent and the CA (the session has them). */
export interface Http2CallOptions {
  method?: string;
  /** Written as JSON. */
  body?: unknown;
  /** Of the body: JSON unless a patch names its kind. */
  contentType?: string;
  /** Sent as `Bearer <token>`. */
  token?: string;
  /** The Authorization header as it is; before `token`. */
  authorization?: string;
  /** The deadline of the whole call, the last byte of the answer included. */
  timeoutMs: number;
}

/** Any status, and the body as text. */
export interface Http2Result {
  status: number;
  body: string;
}

/** One session to one origin, opened on first use and again after the server closed it. */
export class Http2Connection {
  private session?: ClientHttp2Session;
  /** Streams open per session: while any is, it keeps the process alive; idle, it does not. */
  private readonly open = new WeakMap<ClientHttp2Session, number>();

  constructor(
    private readonly origin: string,
    private readonly tls: KubeTls,
  ) {}

  /** The open session, or a new one (a GOAWAY, an error or a close ends the old). */
  current(): ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const { ca, cert, key, rejectUnauthorized, servername } = this.tls;
    const session = http2.connect(this.origin, { ca, cert, key, rejectUnauthorized, servername });
    const forget = () => {
      if (this.session === session) this.session = undefined;
    };
    // A failed session fails its streams, which report it to their callers; it is not thrown.
    session.on('error', forget).on('goaway', forget).on('close', forget);
    // Idle, it does not keep a process alive (the CLI exits when its work is done).
    session.unref();
    this.session = session;
    return session;
  }

  /** A stream of the current session, which holds the process alive until the stream closes. */
  request(headers: OutgoingHttpHeaders, signal: AbortSignal): ClientHttp2Stream {
    const session = this.current();
    const stream = session.request(headers, { signal });
    this.open.set(session, (this.open.get(session) ?? 0) + 1);
    session.ref();
    stream.once('close', () => {
      const left = (this.open.get(session) ?? 1) - 1;
      this.open.set(session, left);
      if (left === 0) session.unref();
    });
    return stream;
  }

  close(): void {
    this.session?.close();
    this.session = undefined;
  }
}

/**
 * One request as a stream of the session, with the same contract as `httpCall`: resolves with any
 * status, rejects on transport errors and at the deadline (a TimeoutError).
 */
export async function http2Call(
  connection: Http2Connection,
  target: URL,
  options: Http2CallOptions,
): Promise<Http2Result> {
  const method = options.method ?? 'GET';
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: OutgoingHttpHeaders = {
    ':method': method,
    ':path': `${target.pathname}${target.search}`,
    accept: 'application/json',
  };
  if (payload !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  const authorization =
    options.authorization ?? (options.token ? `Bearer ${options.token}` : undefined);
  if (authorization) headers.authorization = authorization;
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    return await new Promise<Http2Result>((resolve, reject) => {
      const stream = connection.request(headers, signal);
      let status = 0;
      let ended = false;
      const chunks: Buffer[] = [];
      stream.on('response', (responseHeaders) => (status = Number(responseHeaders[':status'])));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        ended = true;
        resolve({ status, body: Buffer.concat(chunks).toString('utf8') });
      });
      stream.on('error', reject);
      // A stream the server reset, or a session that went away under it, ends without its body.
      stream.on('close', () => {
        if (!ended)
          reject(new Error(`the HTTP/2 stream closed before its answer (code ${stream.rstCode})`));
      });
      stream.end(payload);
    });
  } catch (error) {
    if (!signal.aborted) throw error;
    throw deadlinePassed(method, target, options.timeoutMs, error);
  }
}

/**
 * A call that outlived its deadline, for either transport: a TimeoutError, which kube-errors
 * calls retryable, naming the call and keeping what the abort raised.
 */
export function deadlinePassed(
  method: string,
  target: URL,
  timeoutMs: number,
  cause: unknown,
): Error {
  const timedOut = new Error(`timeout after ${timeoutMs} ms: ${method} ${target.href}`, { cause });
  timedOut.name = 'TimeoutError';
  return timedOut;
}
