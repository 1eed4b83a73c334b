/**
 * Secrets never on Kafka (docs/design.md §4): a process takes environment from a Kubernetes
 * Secret of its session's namespace by reference, on the local stack with the real boot-worker,
 * watcher and state service. kpm creates the session's namespace at the first boot; the Secret
 * is created in it as an operator would (kpm never reads it); the next boot's process names it.
 * The pod carries the reference (`valueFrom.secretKeyRef`, `envFrom.secretRef`) — kwok runs no
 * container, so the kubelet's reading of the value is Kubernetes' part and not observed here —
 * and it survives a restart; the value is in no record of any of the suite's topics, in no pod
 * annotation and in no answer of the state API.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import type { ProcessSpec } from '@kpm/contracts';
import { createKafkaClient, readPartitionHistory } from '@kpm/kafka';
import { KpmTrio } from '../support/kpm-trio';
import { stackEnv } from '../support/stack-env';

jest.setTimeout(300_000);

/** Distinctive values, searched for as written and as the Secret stores them (base64). */
const PASSWORD = 'pw-7f3a9c1e5b2d4068-daq';
const TOKEN = 'tk-0b1c2d3e4f5a6978-daq';

let h: KpmTrio;
let client: ProcessManagerClient;
let session: string;

beforeAll(async () => {
  h = await KpmTrio.start('secret-env');
  client = connectProcessManager({
    brokers: stackEnv().brokers,
    topicPrefix: h.prefix,
    user: 'alice',
  });
  session = h.session('db');
}, 240_000);

afterAll(async () => {
  await client?.close();
  await h?.close();
}, 180_000);

const app = (name: string, extra: Partial<ProcessSpec> = {}): ProcessSpec => ({
  name,
  executableAndArguments: [{ exec: 'daq_application', args: ['--name', name] }],
  annotations: { 'sim.kpm.daq/graceful': 'true' },
  ...extra,
});

const reader = app('db-reader', {
  env: { DAQ_LEVEL: '3' },
  secretEnv: [{ name: 'DB_PASSWORD', secretKeyRef: { name: 'daq-db', key: 'password' } }],
  envFrom: [{ secretRef: { name: 'daq-credentials' } }],
});

async function podOf(name: string): Promise<V1Pod> {
  return h.harness.core.readNamespacedPod({ name, namespace: session });
}

function expectReferences(pod: V1Pod): void {
  const container = pod.spec!.containers[0];
  expect(container.env).toContainEqual({
    name: 'DB_PASSWORD',
    valueFrom: { secretKeyRef: { name: 'daq-db', key: 'password' } },
  });
  expect(container.envFrom).toEqual([{ secretRef: { name: 'daq-credentials' } }]);
  expect(JSON.stringify(pod)).not.toContain(PASSWORD);
  expect(JSON.stringify(pod)).not.toContain(TOKEN);
}

it('boots a process whose environment comes from Secrets by reference, values on no topic', async () => {
  // The first boot makes the session's namespace (kpm's labels, the owner alice).
  const first = await client.boot(
    { session, user: 'alice', processes: [app('root')] },
    { wait: true },
  );
  expect(first.completion?.status).toBe('succeeded');
  for (const [name, data] of [
    ['daq-db', { password: PASSWORD }],
    ['daq-credentials', { DAQ_TOKEN: TOKEN }],
  ] as const)
    await h.harness.core.createNamespacedSecret({
      namespace: session,
      body: { metadata: { name }, type: 'Opaque', stringData: data },
    });

  const booted = await client.boot({ session, user: 'alice', processes: [reader] }, { wait: true });
  expect(booted.completion?.status).toBe('succeeded');
  expectReferences(await podOf('db-reader'));

  // A restart rebuilds the pod from the spec annotation: the references, still no value.
  const before = (await podOf('db-reader')).metadata!.uid;
  const restarted = await client.restart({ session, names: ['^db-reader$'] }, { wait: true });
  expect(restarted.completion?.status).toBe('succeeded');
  const after = await podOf('db-reader');
  expect(after.metadata!.uid).not.toBe(before);
  expectReferences(after);

  const state = await fetch(`${await h.stateUrl()}/v1/processes?session=${session}`);
  const answer = await state.text();
  expect(answer).toContain('db-reader');
  expect(answer).not.toContain(PASSWORD);

  const terminated = await client.terminate({ session, user: 'alice' }, { wait: true });
  expect(terminated.completion?.status).toBe('succeeded');

  const scanned = await scanTopics(h.prefix, [PASSWORD, TOKEN].flatMap(withBase64));
  expect(scanned.found).toEqual([]);
  // The scan read the session's own records: its commands, facts and completions.
  expect(scanned.topics).toEqual(
    expect.arrayContaining(
      ['commands', 'process-events', 'terminations', 'completions', 'broadcast', 'processes'].map(
        (t) => `${h.prefix}.${t}`,
      ),
    ),
  );
  expect(scanned.sessionRecords).toBeGreaterThan(10);
});

const withBase64 = (value: string) => [value, Buffer.from(value).toString('base64')];

/** Every committed record of every topic under `prefix`: key, value and headers searched. */
async function scanTopics(
  prefix: string,
  needles: string[],
): Promise<{ topics: string[]; found: string[]; sessionRecords: number }> {
  const kafka = createKafkaClient({ brokers: stackEnv().brokers, clientId: 'kpm-test-scan' });
  const admin = kafka.admin();
  await admin.connect();
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${prefix}.`)).sort();
  const metadata = await admin.fetchTopicMetadata({ topics });
  await admin.disconnect();
  const found: string[] = [];
  let sessionRecords = 0;
  await readPartitionHistory(
    kafka,
    metadata.topics.map((t) => ({
      topic: t.name,
      partitions: t.partitions.map((p) => p.partitionId),
      until: 'end',
    })),
    (record) => {
      const text = [
        record.key ?? '',
        record.value?.toString('utf8') ?? '',
        ...Object.values(record.headers),
      ].join('\n');
      if (text.includes(session)) sessionRecords++;
      for (const needle of needles)
        if (text.includes(needle))
          found.push(`${record.topic}[${record.partition}]@${record.offset}`);
    },
    { label: 'kpm-test-secret-scan', timeoutMs: 60_000 },
  );
  return { topics, found, sessionRecords };
}
