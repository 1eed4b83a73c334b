import { mkdtempSync, writeFileSync } from 'node:fs';
import {
  Agent,
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKubeApis } from '../kube-client';
import { classifyKubeError, failureOf } from '../kube-errors';
import { PatchType } from './kube-core-api';
import { httpCall, kubeCall, resourceOf } from './kube-http';

/** A kubeconfig for `server` with a bearer token, written to a fresh directory. */
function kubeconfig(server: string, user: Record<string, unknown> = { token: 't0k' }): string {
  const file = join(mkdtempSync(join(tmpdir(), 'kpm-kube-')), 'kubeconfig');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return file;
}

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The client's end of the connection: one port, one kept-alive connection. */
  port?: number;
}

/** A fake API server: records each request and answers with `reply`. */
class FakeApiServer {
  readonly seen: Seen[] = [];
  reply: (seen: Seen, res: ServerResponse) => void = (_, res) => res.end('{}');
  private readonly server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = {
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        port: req.socket.remotePort,
      };
      this.seen.push(seen);
      this.reply(seen, res);
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
};

describe('KubeHttp and the core API over it', () => {
  const api = new FakeApiServer();
  let core: ReturnType<typeof createKubeApis>['core'];

  beforeAll(async () => {
    core = createKubeApis(kubeconfig(await api.start()), 2_000).core;
  });
  afterAll(() => api.stop());
  beforeEach(() => {
    api.seen.length = 0;
  });

  it('creates a pod: the body as JSON with its length, the token, and the answer as plain JSON', async () => {
    api.reply = (seen, res) =>
      json(res, 201, {
        ...JSON.parse(seen.body),
        metadata: { name: 'p', uid: 'u-1', creationTimestamp: '2026-11-26T10:00:00Z' },
      });
    const pod = await core.createNamespacedPod({
      namespace: 'run 7',
      body: { metadata: { name: 'p' }, spec: { containers: [] } },
    });
    expect(api.seen[0]).toMatchObject({
      method: 'POST',
      url: '/api/v1/namespaces/run%207/pods',
      headers: { authorization: 'Bearer t0k', 'content-type': 'application/json' },
    });
    expect(Number(api.seen[0].headers['content-length'])).toBe(api.seen[0].body.length);
    expect(pod.metadata).toEqual({
      name: 'p',
      uid: 'u-1',
      creationTimestamp: '2026-11-26T10:00:00Z',
    });
  });

  it('deletes with the grace in the query and the preconditions as a measured body', async () => {
    await core.deleteNamespacedPod({
      namespace: 'ns',
      name: 'p',
      gracePeriodSeconds: 0,
      body: { preconditions: { uid: 'u-1' }, gracePeriodSeconds: 0 },
    });
    expect(api.seen[0].method).toBe('DELETE');
    expect(api.seen[0].url).toBe('/api/v1/namespaces/ns/pods/p?gracePeriodSeconds=0');
    expect(JSON.parse(api.seen[0].body)).toEqual({
      preconditions: { uid: 'u-1' },
      gracePeriodSeconds: 0,
    });
    expect(api.seen[0].headers['content-length']).toBe(String(api.seen[0].body.length));
  });

  it('patches with the content type of the patch kind', async () => {
    await core.patchNamespacedPod(
      { namespace: 'ns', name: 'p', body: [{ op: 'remove', path: '/metadata/finalizers/0' }] },
      PatchType.json,
    );
    await core.patchNamespace({ name: 'ns', body: { metadata: { labels: {} } } }, PatchType.merge);
    expect(api.seen.map((s) => [s.method, s.headers['content-type']])).toEqual([
      ['PATCH', 'application/json-patch+json'],
      ['PATCH', 'application/merge-patch+json'],
    ]);
  });

  it("lists with selectors and the page token, and gives the next token as client-node's _continue", async () => {
    api.reply = (_, res) =>
      json(res, 200, { metadata: { resourceVersion: '42', continue: 'next' }, items: [] });
    const page = await core.listPodForAllNamespaces({
      labelSelector: 'a=b,c in (d)',
      limit: 500,
      _continue: 'tok',
    });
    const url = new URL(api.seen[0].url!, 'http://x');
    expect(url.pathname).toBe('/api/v1/pods');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      labelSelector: 'a=b,c in (d)',
      limit: '500',
      continue: 'tok',
    });
    expect(page.metadata).toMatchObject({ resourceVersion: '42', _continue: 'next' });
  });

  it("reads a pod's log as text", async () => {
    api.reply = (_, res) => res.end('line 1\nline 2\n');
    const text = await core.readNamespacedPodLog({
      namespace: 'ns',
      name: 'p',
      tailLines: 2,
      limitBytes: 100,
    });
    expect(text).toBe('line 1\nline 2\n');
    expect(api.seen[0].url).toBe('/api/v1/namespaces/ns/pods/p/log?tailLines=2&limitBytes=100');
  });

  it.each([
    [404, 'NotFound', 'not-found'],
    [409, 'AlreadyExists', 'conflict'],
    [422, 'Invalid', 'invalid'],
    [429, 'TooManyRequests', 'retryable'],
    [503, 'ServiceUnavailable', 'retryable'],
  ])('a %i answer is a %s failure kpm classifies as %s', async (status, reason, kind) => {
    api.reply = (_, res) => json(res, status, { kind: 'Status', reason, message: `m ${status}` });
    const error = await core.readNamespace({ name: 'x' }).catch((e: unknown) => e);
    expect(failureOf(error)).toEqual({ kind, status, reason, message: `m ${status}` });
  });

  it('a 403 of a namespace whose service account is not yet created is retryable', async () => {
    const message =
      'pods "p" is forbidden: error looking up service account ns/default: serviceaccount "default" not found';
    api.reply = (_, res) => json(res, 403, { reason: 'Forbidden', message });
    const error = await core
      .createNamespacedPod({ namespace: 'ns', body: {} })
      .catch((e: unknown) => e);
    expect(failureOf(error).kind).toBe('retryable');
  });

  it('a refused connection is retryable', async () => {
    const { core: nowhere } = createKubeApis(kubeconfig('http://127.0.0.1:1'), 2_000);
    const error = await nowhere.listNode().catch((e: unknown) => e);
    expect(failureOf(error)).toMatchObject({ kind: 'retryable', reason: 'ECONNREFUSED' });
  });
});

describe('httpCall and kubeCall: any status resolved, transport errors rejected', () => {
  const api = new FakeApiServer();
  let server: string;

  beforeAll(async () => {
    server = await api.start();
  });
  afterAll(() => api.stop());
  beforeEach(() => {
    api.seen.length = 0;
    api.reply = (_, res) => res.end('{}');
  });

  it('resolves a refusal as its status and body, for the caller to read', async () => {
    api.reply = (_, res) => json(res, 409, { reason: 'AlreadyExists' });
    const endpoint = { server, ca: '', token: 'admin' };
    const result = await kubeCall(endpoint, 'POST', '/api/v1/nodes', { metadata: { name: 'n' } });
    expect(result).toEqual({ status: 409, body: '{"reason":"AlreadyExists"}' });
    expect(api.seen[0]).toMatchObject({
      method: 'POST',
      url: '/api/v1/nodes',
      headers: { authorization: 'Bearer admin', 'content-type': 'application/json' },
    });
  });

  it('sends a patch with its kind and no Authorization without a token', async () => {
    await httpCall(`${server}/api/v1/nodes/n`, {
      method: 'PATCH',
      body: { spec: { unschedulable: true } },
      contentType: 'application/merge-patch+json',
    });
    expect(api.seen[0].headers['content-type']).toBe('application/merge-patch+json');
    expect(api.seen[0].headers.authorization).toBeUndefined();
  });

  it("measures a DELETE's body, so the next call on the kept-alive connection is read whole", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const options = { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 5 };
    const first = await httpCall(`${server}/api/v1/namespaces/ns/pods/p`, {
      method: 'DELETE',
      body: options,
      agent,
    });
    const second = await httpCall(`${server}/api/v1/nodes`, { agent });
    agent.destroy();
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(JSON.parse(api.seen[0].body)).toEqual(options);
    expect(api.seen[0].headers['content-length']).toBe(String(api.seen[0].body.length));
    expect(api.seen[1]).toMatchObject({ method: 'GET', url: '/api/v1/nodes', body: '' });
    expect(api.seen[1].port).toBe(api.seen[0].port);
  });

  it('rejects a refused connection', async () => {
    const error = await httpCall('http://127.0.0.1:1/healthz').catch((e: unknown) => e);
    expect(failureOf(error)).toMatchObject({ kind: 'retryable', reason: 'ECONNREFUSED' });
  });

  it('bounds the whole call: an answer whose body never ends is a timeout too', async () => {
    api.reply = (_, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"items":');
    };
    const error = await httpCall(`${server}/api/v1/pods`, { timeoutMs: 200 }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      name: 'TimeoutError',
      message: `timeout after 200 ms: GET ${server}/api/v1/pods`,
    });
    expect(failureOf(error)).toMatchObject({ kind: 'retryable', reason: 'Timeout' });
  });
});

describe('KubeHttp timeouts', () => {
  let server: Server;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    // Accepts connections and never answers: a half-dead API server connection.
    server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    sockets.forEach((socket) => socket.destroy());
    await new Promise((resolve) => server.close(resolve));
  });

  it('aborts an API call that gets no answer, as a retryable Timeout', async () => {
    const { port } = server.address() as AddressInfo;
    const { core } = createKubeApis(kubeconfig(`https://127.0.0.1:${port}`), 300);
    const started = Date.now();
    const error = await core.listNamespace().catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(classifyKubeError(error)).toMatchObject({ kind: 'retryable', reason: 'Timeout' });
  });

  it('a call to an answerless server rejects at its deadline, naming the call', async () => {
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/healthz`;
    const started = Date.now();
    const error = await httpCall(url, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error).toMatchObject({
      name: 'TimeoutError',
      message: `timeout after 200 ms: GET ${url}`,
    });
  });
});

describe('resourceOf: a span names the kind of object, never its name', () => {
  it.each([
    ['/api/v1/namespaces', 'namespaces'],
    ['/api/v1/namespaces/s1', 'namespaces'],
    ['/api/v1/namespaces/s1/pods', 'pods'],
    ['/api/v1/namespaces/s1/pods/p1', 'pods'],
    ['/api/v1/namespaces/s1/pods/p1/log?tailLines=5', 'pods/log'],
    ['/api/v1/nodes/n1', 'nodes'],
    ['/apis/coordination.k8s.io/v1/namespaces/default/leases/kpm-watcher', 'leases'],
    ['/api', 'api'],
  ])('%s → %s', (path, resource) => {
    expect(resourceOf(path)).toBe(resource);
  });
});
