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

jest.setTimeout(240_000);

const PARTITIONS = 6;
const crc32Partition = (key: string) => crc32(key) % PARTITIONS;

let h: KpmTrio;
let producer: Producer;
let completions: TopicProbe;
let commands: TopicProbe;

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
}, 180_000);

afterAll(async () => {
  await completions?.stop();
  await commands?.stop();
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
): Promise<CommandCompleted> {
  const id = randomUUID();
  const record = encodeEvent(
    buildEvent({ type, id, source: '/kpm/test/routing', subject: session, data } as never),
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

const app = (name: string, treeId: string) => ({
  name,
  treeId,
  executableAndArguments: [{ exec: 'daq_application', args: ['--name', name] }],
});

/** Every command type, in a session's life; each answer of the misrouted session is compared. */
async function life(place: Place, session: string) {
  const user = 'alice';
  const byName = (name: string) => ({ query: { session, names: [`^${name}$`] } });
  const steps: Array<[EventType, unknown]> = [
    [
      CommandType.boot,
      {
        session,
        user,
        processes: [app('root', '0'), app('ru-01', '0.1.1'), app('ru-02', '0.1.2')],
      },
    ],
    [CommandType.ps, { query: { session } }],
    [CommandType.logs, { ...byName('ru-01'), tailLines: 5 }],
    [CommandType.restart, byName('ru-02')],
    [CommandType.kill, byName('ru-01')],
    [CommandType.flush, { query: { session } }],
    [CommandType.ps, { query: { session } }],
    [CommandType.terminate, { session, user }],
    [CommandType.kill, { query: {} }],
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
