/**
 * @kpm/client as another DAQ component uses it, against the real boot-worker, watcher and state
 * on the local stack: awaited completions, the live event stream of one session (terminations,
 * completions and drunc's broadcasts), a restart addressed by uuid alone, and the time a boot and
 * a terminate of many processes take end to end.
 */
import { eventually } from '@kpm/common';
import {
  BroadcastEventType,
  broadcastText,
  CommandType,
  CompletionType,
  TerminationType,
  topicName,
  type KpmEvent,
} from '@kpm/contracts';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import { KpmTrio } from '../support/kpm-trio';
import { stackEnv } from '../support/stack-env';
import { TopicProbe } from '../support/topic-probe';

jest.setTimeout(240_000);

const app = (name: string, treeId: string, annotations: Record<string, string> = {}) => ({
  name,
  treeId,
  executableAndArguments: [{ exec: 'daq_application', args: ['--name', name] }],
  annotations,
});

/** A drunc controller: the same process running drunc-controller (its role is by executable). */
const controller = (...args: Parameters<typeof app>) => ({
  ...app(...args),
  executableAndArguments: [{ exec: 'drunc-controller', args: ['--name', args[0]] }],
});

let h: KpmTrio;
let client: ProcessManagerClient;

beforeAll(async () => {
  h = await KpmTrio.start('client-e2e', {
    KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
    KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
  });
  client = connectProcessManager({
    brokers: stackEnv().brokers,
    topicPrefix: h.prefix,
    user: 'alice', // the owner of this suite's sessions
  });
}, 180_000);

afterAll(async () => {
  await client?.close();
  await h?.close();
}, 180_000);

/** Collects a stream's events in the background. */
function collect(stream: AsyncIterable<KpmEvent>): KpmEvent[] {
  const seen: KpmEvent[] = [];
  void (async () => {
    for await (const event of stream) seen.push(event);
  })();
  return seen;
}

it("follows a session's life: boot, a process failing on its own, kill, terminate", async () => {
  const session = h.session('life');
  const stream = client.events({ session });
  await stream.ready();
  const seen = collect(stream);

  const boot = await client.boot(
    {
      session,
      user: 'alice',
      processes: [
        controller('root', '0', { 'sim.kpm.daq/graceful': 'true' }),
        app('ru-01', '0.1.1'),
        app('ru-02', '0.1.2', { 'sim.kpm.daq/exit-code': '3', 'sim.kpm.daq/run-ms': '1000' }),
      ],
    },
    { wait: true },
  );
  expect(boot.completion?.status).toBe('succeeded');
  expect(boot.completion?.processes).toHaveLength(3);

  // ru-02 ends by itself: a termination and drunc's SUBPROCESS_STATUS_UPDATE, both for this session.
  await eventually(
    () => seen.some((e) => e.type === TerminationType.processTerminated && e.data.name === 'ru-02'),
    { what: 'the termination of ru-02', timeoutMs: 60_000 },
  );
  const ru02 = boot.completion!.processes.find((p) => p.description.metadata.name === 'ru-02')!;
  const text = broadcastText.termination({
    name: 'ru-02',
    session,
    user: 'alice',
    uuid: ru02.uuid,
    exitCode: 3,
    reason: 'Error',
  });
  await eventually(
    () =>
      seen.some(
        (e) =>
          e.type === BroadcastEventType.broadcast &&
          e.data.broadcastType === 'SUBPROCESS_STATUS_UPDATE' &&
          e.data.text === text,
      ),
    { what: `the broadcast "${text}"`, timeoutMs: 60_000 },
  );

  const killed = await client.kill({ query: { session, names: ['^ru-01$'] } }, { wait: true });
  expect(
    killed.completion?.processes.map((p) => [p.description.metadata.name, p.returnCode]),
  ).toEqual([['ru-01', 143]]);
  const terminated = await client.terminate({ session, user: 'alice' }, { wait: true });
  expect(terminated.completion?.status).toBe('succeeded');

  // The stream carried the completions of this session's commands, and nothing of others.
  await eventually(
    () =>
      seen.some(
        (e) =>
          e.type === CompletionType.commandCompleted && e.data.commandId === terminated.commandId,
      ),
    { what: 'the terminate completion on the stream', timeoutMs: 60_000 },
  );
  const completed = seen.flatMap((e) =>
    e.type === CompletionType.commandCompleted ? [e.data.commandId] : [],
  );
  expect(completed).toEqual(
    expect.arrayContaining([boot.commandId, killed.commandId, terminated.commandId]),
  );
  expect(
    seen.every(
      (e) =>
        e.subject === session ||
        (e.type === BroadcastEventType.broadcast && e.data.emitter.session === session),
    ),
  ).toBe(true);
  await stream.close();

  const table = await client.ps({ session });
  expect(Object.fromEntries(table.map((p) => [p.description.metadata.name, p.returnCode]))).toEqual(
    {
      root: 0,
      'ru-01': 143,
      'ru-02': 3,
    },
  );
});

it("restarts a process named by uuid alone, keyed by the uuid's session", async () => {
  const session = h.session('restart');
  const commands = await new TopicProbe(stackEnv().brokers, [
    topicName('commands', h.prefix),
  ]).start();
  try {
    const boot = await client.boot(
      { session, user: 'alice', processes: [app('ru-01', '0.1.1')] },
      { wait: true },
    );
    const [before] = boot.completion!.processes;
    const restart = await client.restart({ uuids: [before.uuid] }, { wait: true });
    expect(restart.session).toBe(session);
    const record = await commands.waitFor((r) => r.event?.id === restart.commandId);
    expect(record.key).toBe(session);
    expect(record.event?.type).toBe(CommandType.restart);
    const [after] = await client.ps({ uuids: [before.uuid] });
    expect(after).toMatchObject({ uuid: before.uuid, statusCode: 'RUNNING' });
    expect(after.podUid).not.toBe(before.podUid);
    await client.terminate({ session, user: 'alice' }, { wait: true });
  } finally {
    await commands.stop();
  }
});

it('boots and terminates 60 processes, reporting how long each took', async () => {
  const session = h.session('many');
  const processes = Array.from({ length: 60 }, (_, i) =>
    app(`ru-${String(i).padStart(2, '0')}`, `0.${1 + (i % 4)}.${i}`),
  );
  const t0 = performance.now();
  const boot = await client.boot({ session, user: 'alice', processes }, { wait: true });
  const bootMs = performance.now() - t0;
  expect(boot.completion?.processes.filter((p) => p.statusCode === 'RUNNING')).toHaveLength(60);
  // Each ends by SIGTERM (143) only once kwok has started it: a pod deleted before is -1.
  await h.harness.podsRunning(session);
  const t1 = performance.now();
  const terminated = await client.terminate({ session, user: 'alice' }, { wait: true });
  const terminateMs = performance.now() - t1;
  expect(terminated.completion?.processes.filter((p) => p.returnCode === 143)).toHaveLength(60);
  console.log(
    `60 processes: boot --wait ${(bootMs / 1000).toFixed(1)} s, terminate --wait ${(terminateMs / 1000).toFixed(1)} s`,
  );
});
