/**
 * The state service's HTTP API with `http.auth` on (a token file), on the local stack with the
 * real boot-worker and watcher: every API route refuses a request without a token or with a bad
 * one (401, `WWW-Authenticate: Bearer`), answers with one; health, metrics and the dashboard's
 * files stay open; no CORS header is ever sent; the dashboard sends its Content-Security-Policy
 * and, given the token by its link or by the prompt, works in a real browser; a log asked for
 * through the dashboard is asked as the token's user (refused naming the owner, unless the
 * owner or an operator); event streams beyond `http.maxStreams` are answered 503.
 */
import { eventually } from '@kpm/common';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import { readSessionFile } from '../../apps/cli/src/session-file/session-file';
import { CONTENT_SECURITY_POLICY } from '../../apps/state/src/dashboard/security-headers';
import { TestBrowser, untilInPage } from '../support/browser';
import { KpmTrio } from '../support/kpm-trio';
import { StateBench } from '../support/state-bench';
import { stackEnv } from '../support/stack-env';

jest.setTimeout(300_000);

const TOKENS = {
  daq: 'daq-token-4f1c2b9e7d3a5f60',
  mallory: 'mallory-token-9a8b7c6d5e4f',
  rc: 'run-control-token-0c1d2e3f4a5b',
};
const MAX_STREAMS = 2;

let h: KpmTrio;
let client: ProcessManagerClient;
let url: string;
let session: string;
let bench: StateBench;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kpm-http-auth-'));
  const tokenFile = join(dir, 'tokens');
  writeFileSync(
    tokenFile,
    `# who may read the state API\n${Object.entries(TOKENS)
      .map(([user, token]) => `${token} ${user}`)
      .join('\n')}\n`,
  );
  // The demo session's fixed node ports (30333, 30500) are cli-demo's to test; suites that boot
  // it beside cli-demo keep its controller and connection server headless.
  h = await KpmTrio.start(
    'http-auth',
    { KPM_OPERATOR_USERS: 'rc', KPM_POD_MANAGEMENT_NODE_PORTS: 'false' },
    {},
    { KPM_HTTP_AUTH_TOKEN_FILE: tokenFile, KPM_HTTP_MAX_STREAMS: String(MAX_STREAMS) },
  );
  url = await h.stateUrl();
  client = connectProcessManager({ brokers: stackEnv().brokers, topicPrefix: h.prefix });
  bench = await new StateBench(h.prefix, ['completions']).start();
  session = h.session('owned');
  const parsed = readSessionFile('examples/demo-session.yaml', { session, defaultUser: 'daq' });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  // Awaited on the bench's probe, which reads completions from the beginning: a client that
  // has only just connected may not have joined before a quick boot's completion is written.
  const booted = await client.boot(parsed.boot);
  expect((await bench.completion(booted.commandId, 120_000)).status).toBe('succeeded');
}, 240_000);

afterAll(async () => {
  await bench?.stop();
  await client?.close();
  await h?.close();
}, 180_000);

const bearer = (user: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[user]}` });

/**
 * Every route of the API, with a request that would succeed given a token. Rows are objects: with
 * tuple rows of two and three items, a callback taking three arguments makes jest treat the third
 * as a `done` callback for the shorter rows, and those tests wait for it forever.
 */
interface Route {
  method: string;
  path: string;
  body?: object;
}
const API: readonly Route[] = [
  { method: 'GET', path: '/v1/processes' },
  { method: 'GET', path: '/v1/sessions' },
  { method: 'GET', path: '/v1/commands/no-such-command' },
  { method: 'GET', path: '/v1/events' },
  { method: 'GET', path: '/v1/dashboard/snapshot' },
  { method: 'GET', path: '/v1/dashboard/stream' },
  { method: 'GET', path: '/v1/dashboard/commands/no-such-command' },
  {
    method: 'POST',
    path: '/v1/dashboard/logs',
    body: { session: 'run-1', uuid: '00000000-0000-4000-8000-000000000000' },
  },
];

function request(method: string, path: string, headers: object, body?: object) {
  return fetch(`${url}${path}`, {
    method,
    headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

describe('the state API with http.auth on', () => {
  it.each(API)('$method $path without a token is 401 with WWW-Authenticate: Bearer', async (r) => {
    const answer = await request(r.method, r.path, {}, r.body);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="kpm"');
    expect(await answer.json()).toMatchObject({ message: 'a bearer token is required' });
  });

  it.each(API)('$method $path with an unknown token is 401 invalid_token', async (r) => {
    const answer = await request(
      r.method,
      r.path,
      { authorization: 'Bearer not-a-token-of-kpm' },
      r.body,
    );
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(
      'Bearer realm="kpm", error="invalid_token", error_description="the token is not known here"',
    );
  });

  it('answers with a token', async () => {
    const processes = await request('GET', `/v1/processes?session=${session}`, bearer('mallory'));
    expect(processes.status).toBe(200);
    expect(((await processes.json()) as { processes: unknown[] }).processes).toHaveLength(9);
    const snapshot = await request('GET', '/v1/dashboard/snapshot', bearer('daq'));
    expect(snapshot.status).toBe(200);
    expect(await snapshot.json()).toHaveProperty('cursor');
  });

  it.each(['/healthz', '/readyz', '/metrics', '/', '/dashboard/app.js', '/favicon.svg'])(
    '%s stays open',
    async (path) => {
      expect((await fetch(`${url}${path}`)).status).toBe(200);
    },
  );

  it('serves the dashboard with its Content-Security-Policy and without the snapshot preload', async () => {
    for (const path of ['/', '/dashboard/feed.js']) {
      const answer = await fetch(`${url}${path}`);
      expect(answer.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
    }
    const page = await (await fetch(`${url}/`)).text();
    expect(page).toContain('<script type="module" src="/dashboard/app.js">');
    expect(page).not.toContain('href="/v1/dashboard/snapshot"');
  });

  it('sends no CORS header, to a simple request or a preflight from another origin', async () => {
    const origin = { origin: 'https://elsewhere.example.org' };
    const simple = await request('GET', '/v1/sessions', { ...origin, ...bearer('daq') });
    expect(simple.status).toBe(200);
    const preflight = await fetch(`${url}/v1/sessions`, {
      method: 'OPTIONS',
      headers: {
        ...origin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    for (const answer of [simple, preflight]) {
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
      expect(answer.headers.get('access-control-allow-headers')).toBeNull();
      expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });
});

describe("the dashboard's logs request acts as the token's user", () => {
  async function logsAs(user: keyof typeof TOKENS) {
    const rows = (await (
      await request('GET', `/v1/processes?session=${session}&name=^ru-01$`, bearer(user))
    ).json()) as { processes: Array<{ uuid: string }> };
    const sent = await request('POST', '/v1/dashboard/logs', bearer(user), {
      session,
      uuid: rows.processes[0].uuid,
      tailLines: 5,
    });
    expect(sent.status).toBe(202);
    const { commandId } = (await sent.json()) as { commandId: string };
    return bench.completion(commandId, 60_000);
  }

  it.each<[keyof typeof TOKENS, string]>([
    ['daq', 'succeeded'],
    ['rc', 'succeeded'],
    ['mallory', 'rejected'],
  ])('%s: %s', async (user, status) => {
    const completion = await logsAs(user);
    expect(completion.status).toBe(status);
    if (status === 'rejected')
      expect(completion.errors?.map((e) => e.message)).toContainEqual(
        `session ${JSON.stringify(session)} belongs to user "daq", not "mallory"`,
      );
  });
});

describe('event streams', () => {
  it(`admits ${MAX_STREAMS} at once, answers one more 503 with Retry-After, and frees a closed one's slot`, async () => {
    const open = await Promise.all(
      ['/v1/events', '/v1/dashboard/stream'].map(async (path) => {
        const abort = new AbortController();
        const answer = await fetch(`${url}${path}`, {
          headers: bearer('daq'),
          signal: abort.signal,
        });
        expect(answer.status).toBe(200);
        return abort;
      }),
    );
    const refused = await fetch(`${url}/v1/events`, { headers: bearer('daq') });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { message: string }).message).toMatch(/http\.maxStreams/);
    open[0].abort();
    // The slot frees when the server sees the connection close: ask until it is admitted.
    const admitted = await retryUntil200(`${url}/v1/events`);
    admitted.abort();
    open[1].abort();
  });
});

/** Opens a stream until one is admitted (each refusal is a 503 answered at once). */
async function retryUntil200(target: string): Promise<AbortController> {
  return eventually(
    async () => {
      const abort = new AbortController();
      const answer = await fetch(target, { headers: bearer('daq'), signal: abort.signal });
      if (answer.status === 200) return abort;
      expect(answer.status).toBe(503);
      return false;
    },
    { what: 'the closed stream freeing its slot', timeoutMs: 10_000, everyMs: 1 },
  );
}

describe('the dashboard in a browser with http.auth on', () => {
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await TestBrowser.launch();
  }, 120_000);
  afterAll(() => browser?.close());

  const counted = (session: string) =>
    `document.querySelector('[data-session=${JSON.stringify(session)}] [data-count="running"] b')?.textContent === '8'`;

  it('takes the token from its link, drops it from the address, goes live with no error', async () => {
    const page = await browser.page();
    const before = browser.errors.length;
    await page.goto(`${url}/?session=${session}#token=${TOKENS.mallory}`);
    await untilInPage(page, counted(session));
    await untilInPage(page, `document.querySelector('#connection')?.textContent === 'live'`);
    expect(page.url()).toBe(`${url}/?session=${session}`);
    expect(browser.errors.slice(before)).toEqual([]);
    await page.close();
  });

  it('asks for the token when the service refuses, then goes live', async () => {
    const page = await browser.page();
    // Forget the token the page before kept (localStorage is the origin's).
    await page.goto(`${url}/healthz`);
    await page.evaluate('localStorage.clear()');
    const before = browser.errors.length;
    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept(TOKENS.daq);
    });
    await page.goto(`${url}/?session=${session}`);
    await untilInPage(page, counted(session));
    expect(asked).toEqual(['The state service asks for a token. Paste your kpm token:']);
    // Only the first request, made before the token was given, was refused (the browser also
    // prints that refusal in the console).
    const fresh = browser.errors.slice(before);
    expect(fresh.filter((e) => !e.startsWith('console:'))).toEqual([
      `401 ${url}/v1/dashboard/snapshot`,
    ]);
    expect(fresh.filter((e) => e.startsWith('console:') && !/status of 401/.test(e))).toEqual([]);
    await page.close();
  });
});
