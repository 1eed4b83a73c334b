/**
 * Partitioner-proof routing (docs/design.md §9.6) against the real boot-worker, watcher and state:
 * every command type written on the partition librdkafka's default partitioner (CRC32) picks,
 * for sessions where it disagrees with murmur2, gets the same answer as the same command written
 * where kafkajs puts it; each misrouted command is forwarded once, with its id.
 */
import { randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import {
  buildEvent,
  CommandType,
  encodeEvent,
  topicName,
  type CommandCompleted,
  type EventType,
} from '@kpm/contracts';
import { FORWARDED_FROM_HEADER, sessionPartition } from '@kpm/kafka';
import { KpmTrio } from '../support/kpm-trio';
import { stackEnv } from '../support/stack-env';
import { TopicProbe } from '../support/topic-probe';
import { daqApplication, druncController } from '../support/daq-application';

jest.setTimeout(240_000);

const PARTITIONS = 6;
const crc32Partition = (key: string) => crc32(key) % PARTITIONS;

let h: KpmTrio;
let producer: Producer;
let completions: TopicProbe;
let commands: TopicProbe;
let caused: TopicProbe;

beforeAll(async () => {
  h = await KpmTrio.start('routing', {
    KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
    KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
  });
  const { brokers } = stackEnv();
  producer = new Kafka({
    clientId: 'kpm-test-routing',
    brokers,
    logLevel: logLevel.NOTHING,
  }).producer();
  await producer.connect();
  completions = await new TopicProbe(brokers, [topicName('completions', h.prefix)]).start();
  commands = await new TopicProbe(brokers, [topicName('commands', h.prefix)]).start();
  caused = await new TopicProbe(
    brokers,
    (['process-events', 'broadcast', 'terminations', 'processes'] as const).map((t) =>
      topicName(t, h.prefix),
    ),
  ).start();
}, 180_000);

afterAll(async () => {
  await completions?.stop();
  await commands?.stop();
  await caused?.stop();
  await producer?.disconnect();
  await h?.close();
}, 180_000);

/** A session of this suite on which CRC32 and murmur2 disagree. */
function disagreeingSession(name: string): string {
  for (let i = 0; ; i++) {
    const candidate = `${name}${i}`;
    const session = h.session(candidate);
    if (crc32Partition(session) !== sessionPartition(session, PARTITIONS)) return session;
  }
}

type Place = 'murmur2' | 'crc32';

/** Writes a command on the partition `place` gives its session; resolves with its completion. */
async function command(
  place: Place,
  session: string,
  type: EventType,
  data: unknown,
  traceparent?: string,
): Promise<CommandCompleted> {
  const id = randomUUID();
  const record = encodeEvent(
    buildEvent({
      type,
      id,
      source: '/kpm/test/routing',
      subject: session,
      data,
      traceparent,
    } as never),
  );
  const partition =
    place === 'crc32' ? crc32Partition(session) : sessionPartition(session, PARTITIONS);
  await producer.send({
    topic: topicName('commands', h.prefix),
    messages: [{ ...record, partition }],
  });
  const done = await completions.waitFor((r) => r.event?.data.commandId === id, 90_000);
  return done.event!.data as unknown as CommandCompleted;
}

/** What a client sees of an answer, the session's name left out. */
function answer(completion: CommandCompleted, session: string) {
  const blind = (text: string) => text.split(session).join('<session>');
  return {
    commandType: completion.commandType,
    status: completion.status,
    processes: completion.processes
      .map((p) => `${p.description.metadata.name} ${p.statusCode} ${p.returnCode ?? ''}`)
      .sort(),
    pending: completion.pending ?? [],
    errors: completion.errors?.map((e) => `${e.path} ${blind(e.message)}`) ?? [],
    logs: completion.logs?.map((l) => l.lines.map(blind)) ?? [],
  };
}

/** Every command type, in a session's life; each answer of the misrouted session is compared. */
async function life(place: Place, session: string) {
  const user = 'alice';
  const byName = (name: string) => ({ query: { session, names: [`^${name}$`] }, user });
  const steps: Array<[EventType, unknown]> = [
    [
      CommandType.boot,
      {
        session,
        user,
        processes: [
          druncController('root', '0'),
          daqApplication('ru-01', '0.1.1'),
          daqApplication('ru-02', '0.1.2'),
        ],
      },
    ],
    [CommandType.ps, { query: { session } }],
    [CommandType.logs, { ...byName('ru-01'), tailLines: 5 }],
    [CommandType.restart, byName('ru-02')],
    [CommandType.kill, byName('ru-01')],
    [CommandType.flush, { query: { session }, user }],
    [CommandType.ps, { query: { session } }],
    [CommandType.terminate, { session, user }],
    [CommandType.kill, { query: {}, user }],
  ];
  const answers = [];
  for (const [type, data] of steps)
    answers.push(answer(await command(place, session, type, data), session));
  return answers;
}

it('answers every command written on the CRC32 partition as it answers one on the murmur2 partition', async () => {
  const home = h.session('home');
  const away = disagreeingSession('away');
  const [direct, forwarded] = await Promise.all([life('murmur2', home), life('crc32', away)]);
  expect(forwarded).toEqual(direct);
  expect(direct.map((a) => `${a.commandType.split('.')[3]} ${a.status}`)).toEqual([
    'boot succeeded',
    'ps succeeded',
    'logs succeeded',
    'restart succeeded',
    'kill succeeded',
    'flush succeeded',
    'ps succeeded',
    'terminate succeeded',
    'kill rejected',
  ]);
  expect(direct[5].processes).toEqual(['ru-01 DEAD 143']);
});

it('forwards each misrouted command once, with its id, to its session’s partition; answers it once', async () => {
  const session = disagreeingSession('once');
  const done = await command('crc32', session, CommandType.ps, { query: { session } });
  const id = done.commandId;
  const home = sessionPartition(session, PARTITIONS);
  const away = crc32Partition(session);
  const forwarded = await commands.waitFor((r) => r.event?.id === id && r.partition === home);
  const copies = commands.records.filter((r) => r.event?.id === id);
  expect(copies.map((r) => r.partition).sort()).toEqual([home, away].sort());
  expect(forwarded.key).toBe(session);
  expect(forwarded.headers[FORWARDED_FROM_HEADER]).toMatch(new RegExp(`^${away}/\\d+$`));
  const answers = completions.records.filter((r) => r.event?.data.commandId === id);
  expect(answers.map((r) => r.partition)).toEqual([home]);
});

/** A boot in CloudEvents binary mode (ce_ headers, value = data) on the partition `place` gives. */
async function binaryBoot(place: Place, session: string, traceparent: string) {
  const id = randomUUID();
  const data = {
    session,
    user: 'alice',
    processes: [druncController('root', '0'), daqApplication('ru-01', '0.1.1')],
  };
  await producer.send({
    topic: topicName('commands', h.prefix),
    messages: [
      {
        key: session,
        partition:
          place === 'crc32' ? crc32Partition(session) : sessionPartition(session, PARTITIONS),
        value: JSON.stringify(data),
        headers: {
          'content-type': 'application/json',
          ce_specversion: '1.0',
          ce_id: id,
          ce_source: '/daq/python-component',
          ce_type: CommandType.boot,
          ce_subject: session,
          ce_traceparent: traceparent,
        },
      },
    ],
  });
  const done = await completions.waitFor((r) => r.event?.data.commandId === id, 90_000);
  return { id, completion: done.event!.data as unknown as CommandCompleted, record: done };
}

it('completes a binary-mode boot written on the CRC32 partition; its trace is on every record it caused', async () => {
  const session = disagreeingSession('trace');
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const { id, completion, record } = await binaryBoot('crc32', session, traceparent);
  expect(completion.status).toBe('succeeded');
  expect(completion.processes.map((p) => p.description.metadata.name).sort()).toEqual([
    'root',
    'ru-01',
  ]);
  const uuids = completion.processes.map((p) => p.uuid);
  // The terminations carry the boot's trace (from the pods), the terminate's completion its own.
  const terminateTrace = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const terminated = await command(
    'crc32',
    session,
    CommandType.terminate,
    { session, user: 'alice' },
    terminateTrace,
  );
  expect(terminated.status).toBe('succeeded');
  const terminateCompletion = completions.records.find(
    (r) => r.event?.data.commandId === terminated.commandId,
  );
  expect(terminateCompletion?.event?.traceparent).toBe(terminateTrace);
  await caused.waitFor(
    (r) =>
      r.event?.data.broadcastType === 'COMMAND_EXECUTION_SUCCESS' &&
      (r.event.data.data as { commandId?: string } | undefined)?.commandId === id,
  );
  for (const uuid of uuids) {
    await caused.waitFor(
      (r) => r.event?.type === 'daq.kpm.process.terminated.v1' && r.event.data.uuid === uuid,
    );
  }
  const ofBoot = caused.records.filter((r) => {
    const data = r.event?.data;
    if (!data) return false;
    if (r.event!.type === 'daq.kpm.process.terminated.v1')
      return uuids.includes(data.uuid as string);
    if (r.event!.type === 'daq.kpm.process.instance.v1')
      return uuids.includes(data.uuid as string) && data.statusCode === 'RUNNING';
    const commandId =
      data.commandId ?? (data.data as { commandId?: string } | undefined)?.commandId;
    return commandId === id;
  });
  const kinds = ofBoot.map((r) =>
    r.event!.type === 'daq.kpm.broadcast.v1'
      ? `broadcast ${String(r.event!.data.broadcastType)}`
      : r.event!.type,
  );
  expect(new Set(kinds)).toEqual(
    new Set([
      'daq.kpm.boot.accepted.v1',
      'daq.kpm.process.booted.v1',
      'daq.kpm.process.instance.v1',
      'daq.kpm.process.terminated.v1',
      'broadcast COMMAND_RECEIVED',
      'broadcast COMMAND_EXECUTION_START',
      'broadcast COMMAND_EXECUTION_SUCCESS',
    ]),
  );
  expect(
    ofBoot
      .filter((r) => r.event!.traceparent !== traceparent)
      .map((r) => `${r.topic} ${r.event!.type}`),
  ).toEqual([]);
  expect(record.event!.traceparent).toBe(traceparent);
  expect(record.headers['content-type']).toBe('application/cloudevents+json');
});

/** A binary-mode record: the given headers, the value as is. */
async function sendBinary(
  session: string,
  headers: Record<string, string>,
  value: string | null,
): Promise<void> {
  await producer.send({
    topic: topicName('commands', h.prefix),
    messages: [
      { key: session, value, headers: { 'content-type': 'application/json', ...headers } },
    ],
  });
}

it('answers bad binary-mode records exactly: dead letter or rejection naming the field; the next goes through', async () => {
  const session = h.session('badbin');
  const ps = JSON.stringify({ query: { session } });
  const attributes = (id: string) => ({
    ce_specversion: '1.0',
    ce_id: id,
    ce_source: '/daq/python-component',
    ce_type: CommandType.ps,
    ce_subject: session,
  });
  const letters = await new TopicProbe(stackEnv().brokers, [
    topicName('dead-letters', h.prefix),
  ]).start();
  try {
    const { ce_specversion: _, ...noVersion } = attributes(randomUUID());
    await sendBinary(session, noVersion, ps);
    const letter = await letters.waitFor((r) => r.key === session);
    expect(letter.event?.data.reason).toBe(
      'missing the CloudEvents attribute "specversion" (header ce_specversion)',
    );

    const notJson = randomUUID();
    await sendBinary(session, attributes(notJson), '{ query');
    const rejected = await completions.waitFor((r) => r.event?.data.commandId === notJson);
    expect(rejected.event?.data).toMatchObject({
      status: 'rejected',
      errors: [{ path: 'data', message: expect.stringMatching(/^is not UTF-8 JSON: /) as string }],
    });

    const good = randomUUID();
    await sendBinary(session, attributes(good), ps);
    const answered = await completions.waitFor((r) => r.event?.data.commandId === good);
    expect(answered.event?.data.status).toBe('succeeded');
  } finally {
    await letters.stop();
  }
});

it('refuses a kill whose uuids span sessions, naming the processes of the other session', async () => {
  const [a, b] = [h.session('span-a'), h.session('span-b')];
  const boot = (session: string) =>
    command('murmur2', session, CommandType.boot, {
      session,
      user: 'alice',
      processes: [daqApplication('ru-01', '0.1.1')],
    });
  const [bootA, bootB] = await Promise.all([boot(a), boot(b)]);
  const uuids = [bootA.processes[0].uuid, bootB.processes[0].uuid];
  const killed = await command('murmur2', a, CommandType.kill, { query: { uuids }, user: 'alice' });
  expect(killed).toMatchObject({
    status: 'rejected',
    errors: [
      {
        path: 'query',
        message: `selects processes of other sessions than the command's subject "${a}": ru-01 (${b}); a command acts on one session, send one per session`,
      },
    ],
  });
  for (const session of [a, b]) {
    await h.harness.podsRunning(session);
    const done = await command('murmur2', session, CommandType.terminate, {
      session,
      user: 'alice',
    });
    expect(done.processes.map((p) => p.returnCode)).toEqual([143]);
  }
});
