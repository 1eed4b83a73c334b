import { eventually } from '@kpm/common';
import { randomBytes } from 'node:crypto';
import {
  CoreV1Api,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
} from '@kubernetes/client-node';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import {
  CommandType,
  ProcessEventType,
  topicName,
  type CommandCompleted,
  type TopicId,
} from '@kpm/contracts';
import { KpmLabels } from '@kpm/kube';
import { KafkaClusterFixture } from '../support/kafka-cluster-fixture';
import { ServiceProcess } from '../support/service-process';
import { isCompletion } from '../support/state-bench';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';
import { allTerminations } from '../support/terminations';
import { TopicProbe, type ProbedRecord } from '../support/topic-probe';

/**
 * Broker failover on a three-broker cluster (replication 3, min.insync.replicas 2): the three
 * services run as child processes against a cluster of the suite's own, beside the shared
 * one-broker stack, and boot then kill 200 processes while the broker leading the session's
 * partition is killed with SIGKILL in the middle of each. Nothing may be lost or doubled, and the
 * services must ride it out in the same processes.
 *
 * The broker killed mid-boot stays down until the boot completed — the services must finish on
 * two brokers, which is what min.insync.replicas 2 promises — and is restarted before the kill
 * phase: with two of three down the controller quorum and every partition's ISR would be lost,
 * which no client can ride out.
 */
jest.setTimeout(900_000);

const COUNT = 200;
/** The boot-worker's command consumers' session timeout (libs/kafka CloudEventServer). */
const CONSUMER_SESSION_TIMEOUT_MS = 30_000;
const label = `kfo-${randomBytes(3).toString('hex')}`;
const prefix = uniqueTopicPrefix('kfo');
const domain = `${label}.test.daq`;
const session = `${label}-run`;
const labels = new KpmLabels(domain);
const kubeconfig = new KubeConfig();
let core: CoreV1Api;
let kafka: KafkaClusterFixture;
const services: ServiceProcess[] = [];
let pids: number[] = [];
let producer: Producer;
let probe: TopicProbe;

const topic = (id: TopicId) => topicName(id, prefix);

beforeAll(async () => {
  const shared = stackEnv();
  kubeconfig.loadFromFile(shared.kubeconfig!);
  core = kubeconfig.makeApiClient(CoreV1Api);
  kafka = await KafkaClusterFixture.start(3);
  const env = {
    ...kafka.env,
    KPM_TOPIC_PREFIX: prefix,
    KPM_LABEL_DOMAIN: domain,
    KUBECONFIG: shared.kubeconfig!,
    KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
    KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
  };
  // The boot-worker first: it creates the topics with replication 3 and min.insync.replicas 2.
  for (const service of ['boot-worker', 'watcher', 'state']) {
    const process = new ServiceProcess(service, { ...env, KPM_INSTANCE: `${label}-${service}` });
    services.push(process);
    await process.start(240_000);
  }
  pids = services.map((s) => s.pid!);
  probe = await new TopicProbe(kafka.brokers, [
    topic('process-events'),
    topic('terminations'),
    topic('completions'),
  ]).start();
  producer = new Kafka({ brokers: kafka.brokers, logLevel: logLevel.NOTHING }).producer({
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await producer.connect();
}, 600_000);

afterAll(async () => {
  for (const service of services) await service.kill('SIGTERM');
  await probe?.stop();
  await producer?.disconnect();
  await releaseSession();
  await kafka?.stop();
}, 300_000);

async function send(id: string, type: string, data: Record<string, unknown>): Promise<void> {
  const value = JSON.stringify({
    specversion: '1.0',
    id,
    source: '/kpm/test',
    type,
    subject: session,
    data,
  });
  await producer.send({
    topic: topic('commands'),
    acks: -1,
    messages: [
      { key: session, value, headers: { 'content-type': 'application/cloudevents+json' } },
    ],
  });
}

const of = (type: string, commandId: string) =>
  probe.records.filter(
    (r) =>
      r.event?.type === type && (r.event.data as { commandId?: string }).commandId === commandId,
  );

/** Waits on the probe (event-driven) until `condition` holds over the records seen. */
async function seen(condition: () => boolean, timeoutMs = 480_000): Promise<void> {
  if (condition()) return;
  // Asked at the newest record only, so a wait over thousands of records stays linear.
  const { records } = probe;
  await probe.waitFor((r) => r === records[records.length - 1] && condition(), timeoutMs);
}

async function sessionPods(): Promise<V1Pod[]> {
  const list = await core.listNamespacedPod({
    namespace: session,
    labelSelector: labels.sessionSelector(session),
  });
  return list.items;
}

/**
 * Kills the broker leading the session's partition of `topicId` once `started` holds, and
 * measures how long until a record of `what` that the services sent after the kill (its
 * CreateTime) was readable: records sent before it may still arrive and prove nothing.
 */
async function killLeaderWhen(
  started: () => boolean,
  topicId: TopicId,
  partition: () => number,
  what: (record: ProbedRecord) => boolean,
): Promise<{ leader: number; recoveredMs: number; killedAt: number }> {
  await seen(started);
  const leader = await kafka.leaderOf(topic(topicId), partition());
  const killedAt = Date.now();
  await kafka.kill9(leader);
  const next = await probe.waitFor((r) => r.createdAtMs >= killedAt && what(r), 300_000);
  const recoveredMs = next.receivedAtMs - killedAt;
  console.log(
    `killed broker ${leader} (leader of ${topic(topicId)}/${partition()}); next ${next.event?.type} after ${recoveredMs} ms`,
  );
  return { leader, recoveredMs, killedAt };
}

/**
 * Waits until `service`'s /readyz answers 200 and returns how long after `killedAt` that was. The
 * bound: kafkajs gives up on the dead broker after its retries (about 10 s), the restarted
 * consumer's rejoin waits until the old member's session (30 s) expired, then one rebalance
 * round; the rest is room for a loaded machine, not part of the promise.
 */
async function readyAgain(service: ServiceProcess, killedAt: number): Promise<number> {
  const boundMs = CONSUMER_SESSION_TIMEOUT_MS + 60_000;
  let last = '';
  const ready = await eventually(
    async () => {
      const answer = await fetch(`${service.url}/readyz`);
      last = `${answer.status} ${await answer.text()}`;
      return answer.status === 200;
    },
    { what: 'ready again', timeoutMs: Math.max(0, killedAt + boundMs - Date.now()), everyMs: 200 },
  ).catch(() => false);
  // The body names the part that is not ready, and why; the log shows what led there.
  if (!ready)
    throw new Error(
      `${service.url}/readyz not 200 within ${boundMs} ms of the kill: ${last}\n${service.logs()}`,
    );
  return Date.now() - killedAt;
}

it('boots and kills 200 processes through two leader failures: nothing lost, nothing doubled', async () => {
  const processes = Array.from({ length: COUNT }, (_, i) => ({
    name: `ru-${String(i).padStart(4, '0')}`,
    treeId: `0.${1 + (i % 10)}.${i}`,
    executableAndArguments: [{ exec: 'daq_application', args: ['--index', String(i)] }],
  }));
  const booted = () => of(ProcessEventType.processBooted, 'kfo-boot');
  await send('kfo-boot', CommandType.boot, { session, user: 'failover', processes });

  // Mid-boot: the broker leading the session's process-events partition dies.
  const bootKill = await killLeaderWhen(
    () => booted().length >= COUNT / 4,
    'process-events',
    () => booted()[0].partition,
    (r) => r.event?.type === ProcessEventType.processBooted,
  );
  const boot = await completion('kfo-boot');
  expect(boot.status).toBe('succeeded');
  expect(new Set(boot.processes.map((p) => p.description.metadata.name)).size).toBe(COUNT);
  // The probe reads three topics at their own pace: the completion may overtake facts.
  const bootedUuids = () =>
    new Set(booted().map((r) => (r.event!.data as { process: { uuid: string } }).process.uuid));
  await seen(() => bootedUuids().size >= COUNT, 120_000);
  expect(bootedUuids().size).toBe(COUNT);
  // A sibling consumer that crashed on the dead broker rejoins, and the rebalance may hand the
  // boot's partition to another consumer, which carries the boot out again: its facts are
  // re-emitted under the same ids (docs/design.md §9.2), so one fact, by id.
  const accepted = of(ProcessEventType.bootAccepted, 'kfo-boot');
  expect(new Set(accepted.map((r) => r.event!.id)).size).toBe(1);
  const pods = await running();
  expect(pods).toHaveLength(COUNT);
  expect(new Set(pods.map((p) => p.metadata!.labels![labels.uuid])).size).toBe(COUNT);

  // Two brokers carried the boot; the third comes back before the next failure.
  await kafka.node(bootKill.leader).up();
  await kafka.fullyInSync(
    ['commands', 'process-events', 'terminations', 'completions'].map((t) => topic(t as TopicId)),
  );

  const terminationsSeen = () =>
    probe.records.filter((r) => r.topic === topic('terminations')).length;
  // The kill's own bound (grace + escalation, ~20 s by default) is shorter than a broker
  // failover (~9 s to fence the dead broker, then retries): give it room, since what is under
  // test is that nothing is lost, not how fast a kill completes through a failure.
  await send('kfo-kill', CommandType.kill, {
    query: { session },
    user: 'failover',
    gracePeriodSeconds: 5,
    timeoutSeconds: 180,
  });
  const killKill = await killLeaderWhen(
    () => terminationsSeen() >= COUNT / 4,
    'terminations',
    () => probe.records.find((r) => r.topic === topic('terminations'))!.partition,
    (r) => r.topic === topic('terminations'),
  );
  const kill = await completion('kfo-kill');
  expect(`${kill.status}: ${kill.status === 'succeeded' ? '' : JSON.stringify(kill)}`).toBe(
    'succeeded: ',
  );
  const uids = pods.map((p) => p.metadata!.uid!);
  const terminations = await allTerminations(probe, uids, 300_000);
  const codes = new Map<number, number>();
  for (const [uid, records] of terminations) {
    expect([uid, records.length]).toEqual([uid, 1]);
    const code = records[0].data.exitCode;
    expect(Number.isInteger(code)).toBe(true);
    codes.set(code, (codes.get(code) ?? 0) + 1);
  }
  expect(Object.fromEntries(codes)).toEqual({ 143: COUNT });
  await eventually(async () => (await sessionPods()).length === 0, {
    what: 'every pod gone',
    timeoutMs: 180_000,
    everyMs: 200,
  });

  for (const id of ['kfo-boot', 'kfo-kill']) {
    const offsets = probe.records.filter(isCompletion(id)).map((r) => `${r.partition}@${r.offset}`);
    expect([id, offsets]).toEqual([id, [expect.any(String)]]);
  }
  // The services rode both failures out in the processes they started in.
  expect(services.map((s) => s.pid)).toEqual(pids);
  // And are ready again: a consumer that gave up on the dead broker restarts under a new member
  // id, and the coordinator completes its rejoin once the old member's session expired
  // (docs/design.md §7.5), so readiness may lag the work that already finished.
  const readyAfterKillMs: number[] = [];
  for (const service of services)
    readyAfterKillMs.push(await readyAgain(service, killKill.killedAt));
  console.log(
    `failover: boot phase recovered ${bootKill.recoveredMs} ms after broker ${bootKill.leader} died, kill phase ${killKill.recoveredMs} ms after broker ${killKill.leader}; terminations ${terminations.size}/${COUNT}, exit codes ${JSON.stringify(Object.fromEntries(codes))}; boot accepted ${accepted.length}× (one id); ready again ${readyAfterKillMs.join('/')} ms after the second kill`,
  );
});

async function completion(commandId: string): Promise<CommandCompleted> {
  const record = await probe.waitFor(isCompletion(commandId), 480_000);
  return record.event!.data as unknown as CommandCompleted;
}

/** The session's pods once every one of them runs (so a kill ends each with SIGTERM, 143). */
function running(): Promise<V1Pod[]> {
  return eventually(
    async () => {
      const pods = await sessionPods();
      const started = (p: V1Pod) =>
        p.status?.containerStatuses?.every((c) => c.state?.running) ?? false;
      return pods.length >= COUNT && pods.every(started) ? pods : false;
    },
    { what: 'every pod running', timeoutMs: 240_000, everyMs: 200 },
  );
}

/** Removes what a failed run left in the shared API server: finalizers, then the namespace. */
async function releaseSession(): Promise<void> {
  const pods = await core.listNamespacedPod({ namespace: session }).catch(() => undefined);
  await Promise.all(
    (pods?.items ?? []).map((pod) =>
      core
        .patchNamespacedPod(
          {
            namespace: session,
            name: pod.metadata!.name!,
            body: [{ op: 'remove', path: '/metadata/finalizers' }],
          },
          setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
        )
        .catch(() => undefined),
    ),
  );
  await core.deleteNamespace({ name: session }).catch(() => undefined);
}
