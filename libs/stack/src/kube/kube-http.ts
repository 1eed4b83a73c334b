import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** How provisioning reaches the API server: the few calls it makes need no client library. */
export interface KubeEndpoint {
  server: string;
  /** PEM of the CA that signed the serving certificate. */
  ca: string;
  token: string;
}

export interface HttpResult {
  status: number;
  body: string;
}

/** One HTTP(S) request with a deadline; resolves with any status, rejects on transport errors. */
export function httpCall(
  url: string,
  options: {
    method?: string;
    body?: unknown;
    ca?: string;
    token?: string;
    timeoutMs?: number;
    /** Of a body: JSON by default; a patch names its kind (`application/json-patch+json`). */
    contentType?: string;
  } = {},
): Promise<HttpResult> {
  const target = new URL(url);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (payload !== undefined) {
    headers['Content-Type'] = options.contentType ?? 'application/json';
    // Always a length: Node sends a DELETE's body neither chunked nor measured, so the server
    // would read it as the start of the next request on the kept-alive connection (400).
    headers['Content-Length'] = String(Buffer.byteLength(payload));
  }
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: options.method ?? 'GET',
        headers,
        ca: options.ca,
        timeout: options.timeoutMs ?? 5000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`timeout after ${options.timeoutMs ?? 5000} ms: ${url}`)),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A call to the API server as the admin. */
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
