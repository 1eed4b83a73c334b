/**
 * DUNE's feeds from real processes on the local stack's real node, read by an independent
 * consumer (Python, confluent-kafka, classes generated from apps/state/proto) as a DUNE tool
 * would: drunc's ACK and success around a boot, a process exiting 3 on its own (one ERS CRITICAL,
 * one SUBPROCESS_STATUS_UPDATE, opmon's n_dead rises), a kill and a restart (no ERS), and the
 * latency from real containers' exits (their finishedAt) to their ERS issues on Kafka.
 */
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import type { ProcessSpec } from '@kpm/contracts';
import { DuneFeeds, suiteFeeds, type FeedRecord } from '../support/dune-feeds';
import { KpmTrio } from '../support/kpm-trio';
import { realNode, realNodeBootEnv, standin } from '../support/real-node';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';

jest.setTimeout(300_000);

const target = realNode();
const feeds = suiteFeeds(uniqueTopicPrefix('feeds-real').replace(/^t-/, 'f-'));
const LATENCY_PROCESSES = 20;
let h: KpmTrio;
let client: ProcessManagerClient;
let consumer: DuneFeeds;
let session: string;

const onRealNode = (name: string, ...args: string[]): ProcessSpec => ({
  name,
  executableAndArguments: standin(...args),
  restriction: { allowedHosts: [target.node] },
});

const ersOf = (name: string) => (r: FeedRecord) =>
  r.kind === 'ers' && r.session === session && r.parameters?.process === name;
const updateOf = (name: string) => (r: FeedRecord) =>
  r.kind === 'broadcast' &&
  r.type === 'SUBPROCESS_STATUS_UPDATE' &&
  (r.text ?? '').startsWith(`Pod '${name}' (session: '${session}'`);
const opmonOf = (s: string, dead: number) => (r: FeedRecord) =>
  r.kind === 'opmon' && r.session === s && r.data?.n_dead === dead;

beforeAll(async () => {
  consumer = await new DuneFeeds(feeds.topics).start();
  h = await KpmTrio.start(
    'feeds-real',
    { ...realNodeBootEnv(target), KPM_KILL_TIMEOUT_SECONDS: '20' },
    {},
    feeds.env,
  );
  client = connectProcessManager({
    brokers: stackEnv().brokers,
    topicPrefix: h.prefix,
    user: 'alice',
  });
  session = h.session('feeds');
}, 240_000);

afterAll(async () => {
  await client?.close();
  await h?.close();
  await consumer?.stop();
}, 180_000);

it("answers a boot with drunc's ACK and COMMAND_EXECUTION_SUCCESS, naming the user", async () => {
  const booted = await client.boot(
    {
      session,
      user: 'alice',
      processes: [
        onRealNode('steady'),
        onRealNode('again'),
        onRealNode('crash', '--exit', '3', '--after', '6s'),
      ],
    },
    { wait: true },
  );
  expect(booted.completion?.status).toBe('succeeded');
  await consumer.waitFor((r) => r.type === 'ACK' && r.text === "User 'alice' executing 'boot'");
  await consumer.waitFor(
    (r) =>
      r.type === 'COMMAND_EXECUTION_SUCCESS' &&
      r.text === "User 'alice' successfully executed 'boot'",
  );
  const counted = await consumer.waitFor(opmonOf(session, 0));
  expect(counted).toMatchObject({
    key: `${session}.process_manager/dunedaq.drunc.opmon.ProcessStatus`,
    application: 'process_manager',
    measurement: 'dunedaq.drunc.opmon.ProcessStatus',
    data: { n_session: 1 },
  });
});

it('reports a process exiting 3 on its own once to ERS and to drunc, and opmon counts it dead', async () => {
  const issue = await consumer.waitFor(ersOf('crash'));
  expect(issue).toMatchObject({
    key: session,
    severity: 'CRITICAL',
    application: 'drunc.process_manager',
    message: 'Process crash has died with a return code 3',
  });
  const update = await consumer.waitFor(updateOf('crash'));
  expect(update.text).toContain('terminated with exit code 3');
  const after = await consumer.waitFor(opmonOf(session, 1));
  expect(after.data).toMatchObject({ n_running: 2, n_dead: 1, n_session: 1 });
});

it('reports no death for a kill or a restart, only their status updates', async () => {
  const killed = await client.kill({ query: { session, names: ['^steady$'] } }, { wait: true });
  expect(killed.completion?.status).toBe('succeeded');
  await consumer.waitFor(updateOf('steady'));
  const restarted = await client.restart({ session, names: ['^again$'] }, { wait: true });
  expect(restarted.completion?.status).toBe('succeeded');
  await consumer.waitFor(updateOf('again'));
  await consumer.waitFor(
    (r) =>
      r.type === 'COMMAND_EXECUTION_SUCCESS' &&
      r.text === "User 'alice' successfully executed 'restart'",
  );

  // A process dying on its own afterwards: its issue comes after any the kill or restart made.
  await client.boot(
    { session, user: 'alice', processes: [onRealNode('marker', '--exit', '5', '--after', '1s')] },
    { wait: true },
  );
  await consumer.waitFor(ersOf('marker'));
  const deaths = ['crash', 'steady', 'again', 'marker'].map(
    (name) => consumer.records.filter(ersOf(name)).length,
  );
  expect(deaths).toEqual([1, 0, 0, 1]);
  expect(consumer.records.filter(updateOf('crash'))).toHaveLength(1);
});

it(`measures real exits to their ERS issues on Kafka over ${LATENCY_PROCESSES} processes`, async () => {
  const names = Array.from({ length: LATENCY_PROCESSES }, (_, i) => `lat-${i}`);
  const booted = await client.boot(
    {
      session,
      user: 'alice',
      processes: names.map((n) => onRealNode(n, '--exit', '3', '--after', '3s')),
    },
    { wait: true },
  );
  expect(booted.completion?.status).toBe('succeeded');
  const issues = await Promise.all(names.map((n) => consumer.waitFor(ersOf(n), 120_000)));
  for (const n of names) expect(consumer.records.filter(ersOf(n))).toHaveLength(1);
  // The issue's time is the container's finishedAt, which Kubernetes keeps to the second: the
  // latency below is from that second's start, so up to 1 s above the true one.
  const latencies = issues
    .map((r) => r.receivedAtMs - Number(BigInt(r.timeNs!) / 1_000_000n))
    .sort((a, b) => a - b);
  // How much of it is Kubernetes' (exit → the watcher sees the pod ended) and how much kpm's.
  const seen = issues
    .map((r) => Date.parse(r.parameters!.observed_at) - Number(BigInt(r.timeNs!) / 1_000_000n))
    .sort((a, b) => a - b);
  const kpm = issues
    .map((r) => r.receivedAtMs - Date.parse(r.parameters!.observed_at))
    .sort((a, b) => a - b);
  const at = (q: number, of = latencies) =>
    of[Math.min(of.length - 1, Math.ceil(q * of.length) - 1)];
  process.stdout.write(
    `dune-feeds latency finishedAt→ERS on Kafka over ${latencies.length} real exits: ` +
      `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, min ${latencies[0]} ms, max ${latencies.at(-1)} ms; ` +
      `of which exit→watcher p50 ${at(0.5, seen)} ms, p99 ${at(0.99, seen)} ms; ` +
      `watcher→ERS on Kafka p50 ${at(0.5, kpm)} ms, p99 ${at(0.99, kpm)} ms\n`,
  );
  expect(latencies.every((ms) => ms >= 0)).toBe(true);
});
