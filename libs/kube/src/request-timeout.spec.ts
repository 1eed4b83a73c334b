import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKubeApis } from './kube-client';
import { classifyKubeError } from './kube-errors';

describe('requestTimeout', () => {
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
    const file = join(mkdtempSync(join(tmpdir(), 'kpm-kube-')), 'kubeconfig');
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'c',
            cluster: { server: `https://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true },
          },
        ],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const { core } = createKubeApis(file, 300);
    const started = Date.now();
    const error = await core.listNamespace().catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(classifyKubeError(error)).toMatchObject({ kind: 'retryable', reason: 'Timeout' });
  });
});
