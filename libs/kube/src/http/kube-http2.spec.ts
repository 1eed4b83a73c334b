import http2, { type Http2Server, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { Http2Connection, http2Call } from './kube-http2';

interface SeenStream {
  method: string;
  path: string;
  authorization?: string;
  contentType?: string;
  body: string;
}

/** A cleartext HTTP/2 server (h2c): counts its sessions, records each stream, answers as told. */
class FakeHttp2Server {
  readonly seen: SeenStream[] = [];
  sessions = 0;
  answer: (seen: SeenStream, stream: ServerHttp2Stream) => void = (_, stream) => {
    stream.respond({ ':status': 200, 'content-type': 'application/json' });
    stream.end('{}');
  };
  private readonly server: Http2Server = http2.createServer();

  async start(): Promise<string> {
    this.server.on('session', () => (this.sessions += 1));
    this.server.on('stream', (stream, headers) => {
      // A stream this server resets reports it here too: expected, not a failure of the test.
      stream.on('error', () => undefined);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const seen = {
          method: String(headers[':method']),
          path: String(headers[':path']),
          authorization: headers.authorization,
          contentType: headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.seen.push(seen);
        this.answer(seen, stream);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('http2Call over one Http2Connection', () => {
  const server = new FakeHttp2Server();
  let connection: Http2Connection;

  beforeAll(async () => {
    connection = new Http2Connection(await server.start(), { rejectUnauthorized: true });
  });
  afterAll(async () => {
    connection.close();
    await server.stop();
  });
  beforeEach(() => {
    server.seen.length = 0;
    server.answer = (seen, stream) => {
      stream.respond({ ':status': seen.method === 'POST' ? 201 : 200 });
      stream.end(JSON.stringify({ echo: seen.body }));
    };
  });

  it('sends the method, path, token and JSON body, and answers with status and body', async () => {
    const target = new URL('http://unused/api/v1/namespaces/run%207/pods?limit=2');
    const result = await http2Call(connection, target, {
      method: 'POST',
      body: { metadata: { name: 'p' } },
      token: 't0k',
      timeoutMs: 2000,
    });
    expect(result).toEqual({
      status: 201,
      body: JSON.stringify({ echo: '{"metadata":{"name":"p"}}' }),
    });
    expect(server.seen[0]).toMatchObject({
      method: 'POST',
      path: '/api/v1/namespaces/run%207/pods?limit=2',
      authorization: 'Bearer t0k',
      contentType: 'application/json',
    });
  });

  it('runs 64 calls at once as streams of one connection', async () => {
    const before = server.sessions;
    const calls = Array.from({ length: 64 }, (_, i) =>
      http2Call(connection, new URL(`http://unused/api/v1/pods/p${i}`), { timeoutMs: 2000 }),
    );
    const results = await Promise.all(calls);
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(server.seen).toHaveLength(64);
    expect(server.sessions - before).toBeLessThanOrEqual(1);
  });

  it('rejects a stream the server resets, naming the reset', async () => {
    server.answer = (_, stream) => stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
    await expect(
      http2Call(connection, new URL('http://unused/api/v1/pods'), { timeoutMs: 2000 }),
    ).rejects.toThrow(/closed before its answer|REFUSED_STREAM|code 7/);
  });

  it('gives up at the deadline with a TimeoutError', async () => {
    server.answer = () => undefined; // never answers
    await expect(
      http2Call(connection, new URL('http://unused/api/v1/pods'), { timeoutMs: 100 }),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('opens a new session once the server closed the last one', async () => {
    const first = connection.current();
    const closed = new Promise<void>((resolve) => first.once('close', () => resolve()));
    first.goaway();
    first.destroy();
    await closed;
    const result = await http2Call(connection, new URL('http://unused/api/v1/pods'), {
      timeoutMs: 2000,
    });
    expect(result.status).toBe(200);
    expect(connection.current()).not.toBe(first);
  });
});
