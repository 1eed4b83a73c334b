/**
 * A DAQ component in Python — confluent-kafka at its default settings, installed from PyPI by
 * scripts/python-env.sh — against the real boot-worker, watcher and state on the local stack:
 * examples/python boots a session from YAML, follows it and terminates it, validating every
 * record against docs/schemas; test/support/python/every_command.py sends every command type.
 *
 * Sessions are chosen where librdkafka's default partitioner (CRC32 of the key) and kafkajs'
 * murmur2 pick the same partition; sessions where they disagree are another matter (routing).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
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
import { projectPython, runPython } from '../support/python';
import { stackEnv } from '../support/stack-env';

jest.setTimeout(600_000);

/** What boot_session.py --json prints. */
interface ExampleSummary {
  boot: { status: string; processes: Array<{ description: { metadata: { name: string } } }> };
  terminate: { status: string };
  terminations: Array<{ name: string }>;
  recordsValidated: number;
}

let h: KpmTrio;
let python: string;
let partitions: number;

const connection = (): string[] => [
  '--brokers',
  stackEnv().brokers.join(','),
  '--topic-prefix',
  h.prefix,
];

beforeAll(async () => {
  python = await projectPython();
  // The demo session's fixed node ports (30333, 30500) are cli-demo's to test; suites that boot
  // it beside cli-demo keep its controller and connection server headless.
  h = await KpmTrio.start('python', {
    ...everyCommandBootWorkerEnv(),
    KPM_POD_MANAGEMENT_NODE_PORTS: 'false',
  });
  partitions = testSettings('cli', h.prefix).kafka.partitions;
}, 600_000);

afterAll(async () => {
  await h?.close();
}, 180_000);

describe('examples/python/boot_session.py', () => {
  it('boots the demo session from YAML, follows every process to its end, terminates it', async () => {
    const [session] = sessionsWherePartitioners(true, 1, partitions, (i) => h.session(`demo-${i}`));
    const { code, stdout, stderr } = await runPython(python, 'examples/python/boot_session.py', [
      'examples/demo-session.yaml',
      '--session',
      session,
      '--json',
      ...connection(),
    ]);
    expect({ code, stderr }).toMatchObject({
      code: 0,
      stderr: expect.stringContaining('all valid'),
    });
    const summary = JSON.parse(stdout) as ExampleSummary;
    expect(summary.boot.status).toBe('succeeded');
    expect(summary.boot.processes).toHaveLength(9);
    expect(summary.terminate.status).toBe('succeeded');
    const booted = summary.boot.processes.map((p) => p.description.metadata.name).sort();
    expect(summary.terminations.map((t) => t.name).sort()).toEqual(booted);
    expect(summary.recordsValidated).toBeGreaterThanOrEqual(2 + 9);
  });

  it('exits 1 naming the field when the session file breaks the contract, publishing nothing', async () => {
    const file = join(tmpdir(), `kpm-python-bad-${process.pid}.yaml`);
    writeFileSync(
      file,
      'session: bad\nprocesses:\n  - name: two words\n    treeId: "0"\n    executableAndArguments: [{ exec: sleep }]\n',
    );
    const { code, stderr } = await runPython(python, 'examples/python/boot_session.py', [
      file,
      '--session',
      h.session('bad'),
      ...connection(),
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /boot_session: daq\.kpm\.command\.boot\.v1 breaks the contract: .*processes\/0\/name/,
    );
  });
});

describe('every command type from confluent-kafka with default settings', () => {
  it('gets the answers a kafkajs client gets, on sessions where CRC32 and murmur2 agree', async () => {
    const sessions = sessionsWherePartitioners(true, 2, partitions, (i) => h.session(`agree-${i}`));
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
      // librdkafka put every command where CRC32 says, which is where murmur2 puts the facts.
      const crc32 = crc32Partition(session, partitions);
      expect(crc32).toBe(murmur2Partition(session, partitions));
      expect(answers.map((a) => a.partition)).toEqual(answers.map(() => crc32));
      expect(answers.map(({ partition: _, ...answer }) => answer)).toEqual(fromKafkajs);
    }
    expect(fromKafkajs.map((a) => [a.command, a.status])).toEqual(
      ['boot', 'kill', 'ps', 'logs', 'restart', 'kill', 'flush', 'ps', 'terminate'].map((c) => [
        c,
        'succeeded',
      ]),
    );
    // flush forgot the two killed processes; terminate ended the one left.
    const [lastPs, terminate] = fromKafkajs.slice(-2);
    expect(lastPs.processes).toEqual([['root', 'RUNNING', null]]);
    expect(terminate.processes).toEqual([['root', 'DEAD', 0]]);
  });
});
