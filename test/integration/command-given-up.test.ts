/**
 * Every command gets exactly one completion (docs/design.md §6.6, §11.9), also one the
 * boot-worker gives up on: the boot-worker loses its API server for longer than its retry budget
 * (8 attempts with backoff), dead-letters the command, and the state service completes it as
 * `failed`, saying why. The waiting client gets that answer; once the API server is back, the
 * next command goes through. The boot-worker reaches the API server through a TCP proxy the test
 * cuts, so the shared stack's own API server keeps serving everybody else.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { connectProcessManager, CommandFailedError, type ProcessManagerClient } from '@kpm/client';
import { CommandType, DeadLetterType, topicName } from '@kpm/contracts';
import { KpmTrio } from '../support/kpm-trio';
import { stackEnv } from '../support/stack-env';
import { TcpProxy } from '../support/tcp-proxy';
import { TopicProbe } from '../support/topic-probe';
import { daqApplication, druncController } from '../support/daq-application';

jest.setTimeout(600_000);

let proxy: TcpProxy;
let h: KpmTrio;
let client: ProcessManagerClient;
let deadLetters: TopicProbe;

/** A copy of the stack's kubeconfig that reaches the API server through `server`. */
function kubeconfigThrough(server: string): string {
  const config = parse(readFileSync(stackEnv().kubeconfig!, 'utf8')) as {
    clusters: Array<{ cluster: { server: string } }>;
  };
  for (const entry of config.clusters) entry.cluster.server = server;
  const file = join(mkdtempSync(join(tmpdir(), 'kpm-given-up-')), 'kubeconfig');
  writeFileSync(file, stringify(config));
  return file;
}

/**
 * Each of the 8 handler attempts retries the API server for `apiRetryDeadlineSeconds` (30 s by
 * default, 4 min in all): 3 s keeps the budget's shape and the suite short.
 */
function shortRetryBudget(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'kpm-given-up-')), 'kpm.yaml');
  writeFileSync(file, stringify({ podManagement: { apiRetryDeadlineSeconds: 3 } }));
  return file;
}

beforeAll(async () => {
  const stack = new URL(
    parse(readFileSync(stackEnv().kubeconfig!, 'utf8')).clusters[0].cluster.server as string,
  );
  proxy = await new TcpProxy({ host: stack.hostname, port: Number(stack.port) }).start();
  h = await KpmTrio.start('givenup', {
    KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
    KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
    KUBECONFIG: kubeconfigThrough(proxy.url),
    KPM_CONFIG: shortRetryBudget(),
  });
  client = connectProcessManager({ brokers: stackEnv().brokers, topicPrefix: h.prefix });
  deadLetters = await new TopicProbe(stackEnv().brokers, [
    topicName('dead-letters', h.prefix),
  ]).start();
}, 180_000);

afterAll(async () => {
  proxy?.restore();
  await deadLetters?.stop();
  await client?.close();
  await h?.close();
  await proxy?.stop();
}, 180_000);

/** The completion of a command that did not succeed. */
async function refused(sent: Promise<unknown>) {
  const error = await sent.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof CommandFailedError))
    throw new Error(`expected a failed command, got ${String(error)}`);
  return error.completion!;
}

it('answers a command given up on with a failed completion, then goes on', async () => {
  const session = h.session('down');
  const booted = await client.boot(
    {
      session,
      user: 'alice',
      processes: [druncController('root', '0'), daqApplication('ru-01', '0.1.1')],
    },
    { wait: true },
  );
  expect(booted.completion?.status).toBe('succeeded');

  proxy.cut(); // the boot-worker's API server is gone for longer than its retry budget
  const started = Date.now();
  const [boot, kill] = await Promise.all([
    refused(
      client.boot(
        { session: h.session('never'), user: 'alice', processes: [druncController('root', '0')] },
        { wait: true, timeoutMs: 400_000 },
      ),
    ),
    refused(
      client.kill(
        { query: { session, names: ['^ru-01$'] } },
        { wait: true, timeoutMs: 400_000, user: 'alice' },
      ),
    ),
  ]);
  const answeredMs = Date.now() - started;
  for (const [completion, type] of [
    [boot, CommandType.boot],
    [kill, CommandType.kill],
  ] as const) {
    expect(completion).toMatchObject({ commandType: type, status: 'failed', processes: [] });
    expect(completion.errors).toEqual([
      {
        message: expect.stringMatching(
          /^the boot-worker gave up on it: handler failed after 8 attempts: /,
        ) as string,
      },
    ]);
    const letter = await deadLetters.waitFor(
      (r) =>
        r.event?.type === DeadLetterType.deadLetter &&
        r.event.data.key === completion.session &&
        Buffer.from(String(r.event.data.valueBase64), 'base64')
          .toString()
          .includes(completion.commandId),
    );
    expect(letter.event?.data.reason).toBe(
      completion.errors![0].message.replace('the boot-worker gave up on it: ', ''),
    );
  }
  console.log(`given up on and answered after ${(answeredMs / 1000).toFixed(1)} s`);

  proxy.restore();
  const again = await client.kill(
    { query: { session, names: ['^ru-01$'] } },
    { wait: true, timeoutMs: 120_000, user: 'alice' },
  );
  expect(
    again.completion?.processes.map((p) => [p.description.metadata.name, p.returnCode]),
  ).toEqual([['ru-01', 143]]);
  const terminated = await client.terminate({ session, user: 'alice' }, { wait: true });
  expect(terminated.completion?.status).toBe('succeeded');
});
