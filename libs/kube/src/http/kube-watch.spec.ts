import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKubeApis } from '../kube-client';

function kubeconfig(server: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'kpm-watch-')), 'kubeconfig');
  writeFileSync(
    file,
    JSON.stringify({
      clusters: [{ name: 'c', cluster: { server } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return file;
}

/** Resolves with what `done` was called with, and the events seen before it. */
function watchOnce(
  watch: ReturnType<typeof createKubeApis>['watch'],
  query: Record<string, string> = {},
): {
  ended: Promise<unknown>;
  events: Array<[string, unknown]>;
  started: Promise<AbortController>;
} {
  const events: Array<[string, unknown]> = [];
  let started!: Promise<AbortController>;
  const ended = new Promise<unknown>((resolve) => {
    started = watch.watch('/api/v1/pods', query, (type, o) => events.push([type, o]), resolve);
  });
  return { ended, events, started };
}

describe('KubeWatch', () => {
  let respond: (url: string, res: ServerResponse) => void;
  const urls: string[] = [];
  const server = createServer((req, res) => {
    urls.push(req.url!);
    respond(req.url!, res);
  });
  let watch: ReturnType<typeof createKubeApis>['watch'];

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    watch = createKubeApis(kubeconfig(`http://127.0.0.1:${port}`)).watch;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  it('hands out each event line, skips what is not an event, and ends with null when the server closes', async () => {
    respond = (_, res) => {
      res.writeHead(200);
      res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n\n');
      res.write('not json\n{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}}\n');
      res.end('{"type":"DELETED","object":{"metadata":{"name":"a"}}}\n');
    };
    const { ended, events } = watchOnce(watch, { labelSelector: 'x=y', resourceVersion: '5' });
    await expect(ended).resolves.toBeNull();
    expect(events).toEqual([
      ['ADDED', { metadata: { name: 'a' } }],
      ['BOOKMARK', { metadata: { resourceVersion: '9' } }],
      ['DELETED', { metadata: { name: 'a' } }],
    ]);
    const url = new URL(urls[urls.length - 1], 'http://x');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      labelSelector: 'x=y',
      resourceVersion: '5',
      watch: 'true',
    });
  });

  it('ends with an error carrying the status when the server refuses the watch (410: re-list)', async () => {
    respond = (_, res) => {
      res.writeHead(410);
      res.end('{"reason":"Expired"}');
    };
    const { ended } = watchOnce(watch);
    await expect(ended).resolves.toMatchObject({ statusCode: 410 });
  });

  it('ends with null once aborted by its controller, and delivers nothing after', async () => {
    respond = (_, res) => {
      res.writeHead(200);
      res.write('{"type":"ADDED","object":{"metadata":{"name":"b"}}}\n');
    };
    const { ended, events, started } = watchOnce(watch);
    const controller = await started;
    await new Promise<void>((resolve) => {
      const poll = () => (events.length > 0 ? resolve() : setImmediate(poll));
      poll();
    });
    controller.abort();
    await expect(ended).resolves.toBeNull();
    expect(events).toHaveLength(1);
  });
});
