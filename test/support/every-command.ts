import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompletionType, topicName } from '@kpm/contracts';
import { type KpmTrio } from './kpm-trio';
import { runPythonGated, type PythonRun } from './python';
import { stackEnv } from './stack-env';
import { TopicProbe } from './topic-probe';

/**
 * The sequence test/support/python/every_command.py runs, sent by kafkajs (murmur2 keys) as raw
 * CloudEvents, with the answers in the same comparable form: what a Python client gets must equal
 * what a kafkajs client gets.
 */
export interface Answer {
  command: string;
  commandType: string;
  status: string;
  processes: Array<[string, string, number | null]>;
  /** How many processes' logs came back (uuids differ between sessions). */
  logs: number | null;
  errors: string[];
}

/**
 * The boot-worker's settings for comparing two clients' answers: its grace-0 escalation waits a
 * minute, so a kill with a 1 s grace always ends its simulated process at kwok's SIGTERM (143),
 * however loaded the machine, and never at an escalation that only a slow moment would reach
 * (137) — the two runs of the same sequence then end the same.
 */
export function everyCommandBootWorkerEnv(): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'kpm-every-command-'));
  const config = join(dir, 'boot-worker.yaml');
  writeFileSync(config, 'podManagement:\n  killEscalationMarginSeconds: 60\n');
  return { KPM_CONFIG: config };
}

interface Completion {
  commandType: string;
  status: string;
  processes: Array<{
    uuid: string;
    statusCode: string;
    returnCode?: number;
    description: { metadata: { name: string } };
  }>;
  logs?: unknown[];
  errors?: Array<{ message: string }>;
}

/** The Python script's `comparable`: ids and times differ between clients, nothing else may. */
export function comparable(command: string, completion: Completion): Answer {
  return {
    command,
    commandType: completion.commandType,
    status: completion.status,
    processes: completion.processes
      .map((p): [string, string, number | null] => [
        p.description.metadata.name,
        p.statusCode,
        p.returnCode ?? null,
      ])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)), // names are unique in a session
    logs: completion.logs ? completion.logs.length : null,
    errors: (completion.errors ?? []).map((e) => e.message),
  };
}

export function threeProcesses(session: string): unknown[] {
  const app = (name: string, treeId: string, annotations: Record<string, string>) => ({
    name,
    treeId,
    executableAndArguments: [{ exec: 'daq_application', args: ['--name', name] }],
    env: { DUNEDAQ_SESSION: session },
    annotations,
  });
  return [
    app('root', '0', { 'sim.kpm.daq/graceful': 'true' }),
    app('ru-01', '0.1.1', {}),
    app('ru-02', '0.1.2', {}),
  ];
}

/** Sends commands for one session through kafkajs and waits for each completion. */
class KafkajsSteps {
  readonly answers: Answer[] = [];

  constructor(
    private readonly trio: KpmTrio,
    private readonly completions: TopicProbe,
    private readonly session: string,
  ) {}

  async send(command: string, data: unknown): Promise<Completion> {
    // As every_command.py --gate: a kill waits until the node runs the session's pods.
    if (command === 'kill' || command === 'terminate')
      await this.trio.harness.podsRunning(this.session);
    const id = randomUUID();
    await this.trio.harness.send(id, `daq.kpm.command.${command}.v1`, data, this.session);
    const found = await this.completions.waitFor(
      (r) => r.event?.type === CompletionType.commandCompleted && r.event.data.commandId === id,
      90_000,
    );
    const completion = found.event!.data as unknown as Completion;
    this.answers.push(comparable(command, completion));
    return completion;
  }
}

function uuidOf(completion: Completion, name: string): string {
  return completion.processes.find((p) => p.description.metadata.name === name)!.uuid;
}

/** boot, kill ru-02, ps, logs, restart ru-01, kill ru-01, flush, ps, terminate. */
export async function everyCommandWithKafkajs(trio: KpmTrio, session: string): Promise<Answer[]> {
  const probe = await new TopicProbe(stackEnv().brokers, [
    topicName('completions', trio.prefix),
  ]).start();
  try {
    const steps = new KafkajsSteps(trio, probe, session);
    const user = 'alice';
    const booted = await steps.send('boot', { session, user, processes: threeProcesses(session) });
    const ru01 = uuidOf(booted, 'ru-01');
    await steps.send('kill', {
      query: { session, names: ['^ru-02$'] },
      user,
      gracePeriodSeconds: 1,
    });
    await steps.send('ps', { query: { session } });
    await steps.send('logs', { query: { session, names: ['^ru-01$'] }, user, tailLines: 10 });
    await steps.send('restart', { query: { uuids: [ru01] }, user });
    await steps.send('kill', {
      query: { session, names: ['^ru-01$'] },
      user,
      gracePeriodSeconds: 1,
    });
    await steps.send('flush', { query: { session }, user });
    await steps.send('ps', { query: { session } });
    await steps.send('terminate', { session, user });
    return steps.answers;
  } finally {
    await probe.stop();
  }
}

/**
 * test/support/python/every_command.py for `sessions`, gated as the kafkajs side waits: each
 * kill and the terminate go out once the node runs the session's pods.
 */
export function everyCommandWithPython(
  python: string,
  trio: KpmTrio,
  sessions: readonly string[],
): Promise<PythonRun> {
  const connection = ['--brokers', stackEnv().brokers.join(','), '--topic-prefix', trio.prefix];
  return runPythonGated(
    python,
    'test/support/python/every_command.py',
    [...sessions, ...connection, '--gate'],
    async ({ gate }) => void (await trio.harness.podsRunning(gate)),
  );
}
