/**
 * The client over an in-memory bus: what it publishes, how it waits, and every way a command can
 * end. A stand-in for the state service answers commands with completions.
 */
import {
  buildEvent,
  CommandType,
  completionEventId,
  CompletionType,
  encodeEvent,
  EXAMPLE_EVENTS,
  parseRecord,
  ProcessTableType,
  topicName,
  type CommandCompleted,
  type EncodedRecord,
  type KpmEvent,
  type ProcessInstance,
} from '@kpm/contracts';
import {
  CommandFailedError,
  CommandTimeoutError,
  CompletionFeedError,
  InvalidCommandError,
} from './errors';
import { InMemoryTransport } from './in-memory-transport';
import { ProcessManagerClient, type Boot } from './process-manager-client';
import { eventually } from '@kpm/common';

const PREFIX = 'unit';
const COMMANDS = topicName('commands', PREFIX);
const COMPLETIONS = topicName('completions', PREFIX);
const RUNNING: ProcessInstance = EXAMPLE_EVENTS[ProcessTableType.processInstance].data;

const boot: Boot = {
  session: 'session-a',
  user: 'alice',
  processes: [{ name: 'ru-01', treeId: '1.1.1', executableAndArguments: [{ exec: 'sleep' }] }],
};

type Answer = Partial<CommandCompleted> | undefined;

/** Plays the state service: answers each command with `answer(command)` (undefined: silence). */
function stateStandIn(bus: InMemoryTransport, answer: (command: KpmEvent) => Answer): void {
  bus.respond(async (topic, record) => {
    if (topic !== COMMANDS) return;
    const parsed = parseRecord(record.value);
    if (!parsed.ok) throw new Error('the client published an invalid command');
    const command = parsed.event;
    const data = answer(command);
    if (!data) return;
    await bus.publish(COMPLETIONS, [completionRecord(command, data)]);
  });
}

function completionRecord(command: KpmEvent, data: Partial<CommandCompleted>): EncodedRecord {
  const completed: CommandCompleted = {
    commandId: command.id,
    commandType: command.type,
    session: command.subject ?? '',
    status: 'succeeded',
    processes: [],
    completedAt: '2026-11-22T10:00:01.000Z',
    durationMs: 1000,
    ...data,
  };
  const event = buildEvent({
    type: CompletionType.commandCompleted,
    id: completionEventId(command.id),
    source: '/kpm/state/test',
    subject: completed.session,
    data: completed,
  });
  return encodeEvent(event);
}

function published(bus: InMemoryTransport) {
  return (bus.topics.get(COMMANDS) ?? []).map((record) => ({
    key: record.key,
    event: JSON.parse(record.value!.toString('utf8')) as KpmEvent,
  }));
}

describe('ProcessManagerClient', () => {
  let bus: InMemoryTransport;
  let client: ProcessManagerClient;

  beforeEach(() => {
    bus = new InMemoryTransport();
    client = new ProcessManagerClient(bus, {
      topicPrefix: PREFIX,
      source: '/kpm/test/host1',
      user: 'carol',
    });
  });
  afterEach(() => client.close());

  it('publishes a boot as a CloudEvent keyed by session, with the command id as event id', async () => {
    const result = await client.boot(boot);
    const [{ key, event }] = published(bus);
    expect(key).toBe('session-a');
    expect(event).toMatchObject({
      specversion: '1.0',
      id: result.commandId,
      type: CommandType.boot,
      subject: 'session-a',
      source: '/kpm/test/host1',
      data: { session: 'session-a', user: 'alice' },
    });
    expect(result.completion).toBeUndefined();
    expect(bus.subscriptionCount).toBe(0); // fire-and-forget starts no consumer
  });

  it('refuses an invalid command before publishing, naming each field', async () => {
    const bad = { ...boot, user: '', processes: [{ ...boot.processes[0], name: 'RU 01' }] };
    const error = await client.boot(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidCommandError);
    expect((error as InvalidCommandError).errors.map((e) => e.path).sort()).toEqual([
      'processes[0].name',
      'user',
    ]);
    expect((error as Error).message).toMatch(/^invalid boot command: .*processes\[0\]\.name: /);
    expect(published(bus)).toEqual([]);
  });

  it('awaits the completion and shares one consumer among concurrent waits', async () => {
    stateStandIn(bus, () => ({ processes: [RUNNING] }));
    const results = await Promise.all([
      client.boot(boot, { wait: true }),
      client.boot({ ...boot, session: 'session-b' }, { wait: true }),
      client.ps({ session: 'session-a' }),
    ]);
    expect(results[0].completion?.processes).toEqual([RUNNING]);
    expect(results[1].session).toBe('session-b');
    expect(results[2]).toEqual([RUNNING]);
    expect(bus.subscriptionCount).toBe(1);
  });

  it('pages through ps by itself, following each nextCursor', async () => {
    const cursors = ['session-a/ru-01/' + RUNNING.uuid, 'session-a/ru-02/' + RUNNING.uuid];
    stateStandIn(bus, (command) => {
      const cursor = (command.data as { cursor?: string }).cursor;
      const page = cursor === undefined ? 0 : cursors.indexOf(cursor) + 1;
      return { processes: [RUNNING], ...(page < 2 ? { nextCursor: cursors[page] } : {}) };
    });
    await expect(client.ps({ session: 'session-a' })).resolves.toEqual([RUNNING, RUNNING, RUNNING]);
    expect(published(bus).map(({ event }) => (event.data as { cursor?: string }).cursor)).toEqual([
      undefined,
      ...cursors,
    ]);
  });

  it("ignores other commands' completions and waits for its own", async () => {
    const other = EXAMPLE_EVENTS[CommandType.ps];
    stateStandIn(bus, (command) => {
      // Someone else's completion lands first on the shared topic.
      void bus.publish(COMPLETIONS, [completionRecord(other, { status: 'failed' })]);
      return { commandId: command.id };
    });
    const result = await client.boot(boot, { wait: true, commandId: 'my-boot-1' });
    expect(result.completion?.commandId).toBe('my-boot-1');
    expect(result.completion?.status).toBe('succeeded');
  });

  it('turns a rejected completion into an error naming the fields', async () => {
    stateStandIn(bus, () => ({
      status: 'rejected',
      errors: [{ path: 'processes[0].image', message: 'image is not in the allow-list' }],
    }));
    const error = await client
      .boot(boot, { wait: true, commandId: 'c-1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandFailedError);
    expect((error as Error).message).toBe(
      'boot command c-1 (session session-a) was rejected: processes[0].image: image is not in the allow-list',
    );
    expect((error as CommandFailedError).completion?.status).toBe('rejected');
  });

  it('reports a failed boot with its reasons', async () => {
    stateStandIn(bus, () => ({
      status: 'failed',
      errors: [{ message: 'ru-01: PodReadyTimeout' }],
    }));
    await expect(client.boot(boot, { wait: true, commandId: 'c-2' })).rejects.toThrow(
      'boot command c-2 (session session-a) failed: ru-01: PodReadyTimeout',
    );
  });

  it('reports a kill the state service timed out, listing the pending processes', async () => {
    stateStandIn(bus, () => ({ status: 'timed_out', pending: [RUNNING.uuid] }));
    const error = await client
      .kill(
        { query: { session: 'session-a' }, timeoutSeconds: 5 },
        { wait: true, commandId: 'k-1' },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandTimeoutError);
    expect((error as Error).message).toBe(
      `kill command k-1 (session session-a) timed out: 1 process(es) still pending (${RUNNING.uuid})`,
    );
  });

  it('gives up when no completion arrives in time and can wait for the same id again', async () => {
    stateStandIn(bus, () => undefined);
    const error = await client
      .boot(boot, { wait: true, timeoutMs: 30, commandId: 'c-3' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandTimeoutError);
    expect((error as Error).message).toMatch(
      /^boot command c-3 \(session session-a\): no completion within 0 s/,
    );
    // The waiter was dropped: a retry with the same id (idempotent on the server) waits anew.
    await expect(
      client.boot(boot, { wait: true, timeoutMs: 30, commandId: 'c-3' }),
    ).rejects.toThrow(CommandTimeoutError);
  });

  it('fails waiting commands when the completion consumer dies, and recovers on the next one', async () => {
    stateStandIn(bus, (command) => (command.type === CommandType.ps ? {} : undefined));
    const waiting = client.boot(boot, { wait: true });
    await eventually(() => published(bus).length === 1, { everyMs: 1 });
    bus.breakSubscriptions(new Error('broker gone'));
    await expect(waiting).rejects.toThrow(CompletionFeedError);
    await expect(waiting).rejects.toThrow('the completion consumer stopped: broker gone');
    await expect(client.ps()).resolves.toEqual([]);
  });

  it('passes a publish failure through and forgets the waiter', async () => {
    bus.failNextPublish = new Error('not enough replicas');
    await expect(client.boot(boot, { wait: true, commandId: 'c-4' })).rejects.toThrow(
      'not enough replicas',
    );
    stateStandIn(bus, () => ({}));
    await expect(client.boot(boot, { wait: true, commandId: 'c-4' })).resolves.toBeDefined();
  });

  it('keys a restart by the session its uuid belongs to, asked of the state service', async () => {
    stateStandIn(bus, (command) =>
      command.type === CommandType.ps ? { processes: [RUNNING] } : { processes: [RUNNING] },
    );
    await client.restart({ uuids: [RUNNING.uuid] }, { wait: true });
    const restart = published(bus).find((r) => r.event.type === CommandType.restart)!;
    expect(restart.key).toBe(RUNNING.description.metadata.session);
    expect(restart.event.data).toEqual({ query: { uuids: [RUNNING.uuid] }, user: 'carol' });
  });

  it.each<[string, (c: ProcessManagerClient) => Promise<unknown>, string]>([
    ['kill, the client user', (c) => c.kill({ query: { session: 'session-a' } }), 'carol'],
    [
      'kill, the user it names',
      (c) => c.kill({ query: { session: 'session-a' }, user: 'dave' }),
      'dave',
    ],
    [
      'restart, the call user',
      (c) => c.restart({ session: 'session-a' }, { user: 'dave' }),
      'dave',
    ],
    ['logs, the client user', (c) => c.logs({ session: 'session-a' }), 'carol'],
    ['flush, the call user', (c) => c.flush({ session: 'session-a' }, { user: 'dave' }), 'dave'],
  ])('sends %s as the acting user', async (_, call, user) => {
    stateStandIn(bus, () => ({}));
    await call(client);
    expect(published(bus).at(-1)!.event.data).toMatchObject({ user });
  });

  it('keys a session-less ps with the all-sessions subject', async () => {
    stateStandIn(bus, () => ({}));
    await client.ps();
    expect(published(bus)[0].key).toBe('*');
  });

  it('fetches logs with the default tail and returns the lines', async () => {
    stateStandIn(bus, () => ({ logs: [{ uuid: RUNNING.uuid, lines: ['started', 'ready'] }] }));
    const logs = await client.logs({ session: 'session-a', uuids: [RUNNING.uuid] });
    expect(logs).toEqual([{ uuid: RUNNING.uuid, lines: ['started', 'ready'] }]);
    expect(published(bus)[0].event.data).toMatchObject({ tailLines: 100 });
  });

  it('sends terminate with its user and timeouts', async () => {
    await client.terminate({ session: 'session-a', user: 'alice', gracePeriodSeconds: 5 });
    expect(published(bus)[0].event).toMatchObject({
      type: CommandType.terminate,
      subject: 'session-a',
      data: { session: 'session-a', user: 'alice', gracePeriodSeconds: 5 },
    });
  });
});
