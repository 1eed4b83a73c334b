/**
 * Partitioner-proof routing (docs/design.md §9.6) from a real non-Java client: a Python DAQ
 * component on confluent-kafka at its default settings (librdkafka's CRC32 partitioner) sends
 * every command type for sessions where CRC32 and kafkajs' murmur2 disagree, so every command
 * lands on another partition than its session's facts. The state service forwards each to its
 * session's partition; every answer equals the one a kafkajs client gets.
 */
import { testSettings } from '../support/services';
import { KpmTrio } from '../support/kpm-trio';
import {
  everyCommandBootWorkerEnv,
  everyCommandWithKafkajs,
  everyCommandWithPython,
  type Answer,
} from '../support/every-command';
import {
  crc32Partition,
  murmur2Partition,
  sessionsWherePartitioners,
} from '../support/partitioners';
import { projectPython } from '../support/python';

jest.setTimeout(600_000);

let h: KpmTrio;
let python: string;
let partitions: number;

beforeAll(async () => {
  python = await projectPython();
  h = await KpmTrio.start('pyroute', everyCommandBootWorkerEnv());
  partitions = testSettings('cli', h.prefix).kafka.partitions;
}, 600_000);

afterAll(async () => {
  await h?.close();
}, 180_000);

it('answers every command type from confluent-kafka as kafkajs, on sessions where CRC32 and murmur2 disagree', async () => {
  const sessions = sessionsWherePartitioners(false, 2, partitions, (i) =>
    h.session(`disagree-${i}`),
  );
  const twin = h.session('kafkajs');
  const [fromPython, fromKafkajs] = await Promise.all([
    everyCommandWithPython(python, h, sessions),
    everyCommandWithKafkajs(h, twin),
  ]);
  expect({ code: fromPython.code, stderr: fromPython.stderr }).toEqual({ code: 0, stderr: '' });
  const result = JSON.parse(fromPython.stdout) as {
    sessions: Record<string, Array<Answer & { partition: number }>>;
  };
  for (const session of sessions) {
    const answers = result.sessions[session];
    // librdkafka put every command where CRC32 says: not where murmur2 puts the session's facts.
    const crc32 = crc32Partition(session, partitions);
    expect(crc32).not.toBe(murmur2Partition(session, partitions));
    expect(answers.map((a) => a.partition)).toEqual(answers.map(() => crc32));
    expect(answers.map(({ partition: _, ...answer }) => answer)).toEqual(fromKafkajs);
  }
  expect(fromKafkajs.map((a) => [a.command, a.status])).toEqual(
    ['boot', 'kill', 'ps', 'logs', 'restart', 'kill', 'flush', 'ps', 'terminate'].map((c) => [
      c,
      'succeeded',
    ]),
  );
  const [lastPs, terminate] = fromKafkajs.slice(-2);
  expect(lastPs.processes).toEqual([['root', 'RUNNING', null]]);
  expect(terminate.processes).toEqual([['root', 'DEAD', 0]]);
});
