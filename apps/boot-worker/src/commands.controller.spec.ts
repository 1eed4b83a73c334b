import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { Registry } from 'prom-client';
import {
  CommandType,
  EXAMPLE_EVENTS,
  type EncodedRecord,
  type FieldError,
  type KpmEvent,
} from '@kpm/contracts';
import { loadSettings } from '@kpm/config';
import type { EventProducer } from '@kpm/kafka';
import { INVALID_EVENT, KafkaEventContext } from '@kpm/kafka/nest';
import type { Broadcaster, BroadcastInput } from '@kpm/service-kit';
import type { BootWorkerHandlers } from './boot-worker.factory';
import { BootWorkerMetrics } from './boot-worker-metrics';
import { StopRequested } from './commands/command-context';
import { CommandsController } from './commands.controller';

const settings = loadSettings('boot-worker', { KPM_INSTANCE: 'test' });
type Acted = { handler: string; data: unknown };

/** The controller over handlers that record what they were given and answer `answer`. */
function setUp(answer: () => Promise<FieldError[]> = () => Promise.resolve([])) {
  const broadcasts: BroadcastInput[] = [];
  const sent: EncodedRecord[] = [];
  const acted: Acted[] = [];
  const broadcaster = {
    broadcast: (input: BroadcastInput) => Promise.resolve(void broadcasts.push(input)),
  } as unknown as Broadcaster;
  const producer = {
    send: (_topic: string, records: EncodedRecord[]) => Promise.resolve(void sent.push(...records)),
  } as unknown as EventProducer;
  const handler = (name: string) => ({
    handle: (data: unknown) => (acted.push({ handler: name, data }), answer()),
  });
  const handlers = {
    boot: handler('boot'),
    kill: handler('kill'),
    terminate: handler('terminate'),
    restart: handler('restart'),
    logs: handler('logs'),
  } as unknown as BootWorkerHandlers;
  const metrics = new BootWorkerMetrics(new Registry());
  const controller = new CommandsController(settings, producer, broadcaster, handlers, metrics);
  return { controller, broadcasts, sent, acted };
}

function recordOf(event: KpmEvent): KafkaEventContext {
  const record = { topic: 'kpm.commands', partition: 0, offset: '7', key: event.subject ?? null };
  return new KafkaEventContext([
    record as never,
    { heartbeat: () => Promise.resolve(), signal: new AbortController().signal },
  ]);
}

/** What Nest routes: the method each pattern names. */
function routes(): Record<string, string> {
  const proto = CommandsController.prototype as unknown as Record<string, object>;
  return Object.fromEntries(
    Object.getOwnPropertyNames(proto).flatMap((method) =>
      ((Reflect.getMetadata(PATTERN_METADATA, proto[method]) as string[] | undefined) ?? []).map(
        (pattern) => [pattern, method],
      ),
    ),
  );
}

/** Delivers the event as Nest's router would: to the method its type routes to. */
function deliver(controller: CommandsController, event: KpmEvent): Promise<void> {
  const method = routes()[event.type] as keyof CommandsController;
  const route = controller[method] as (e: KpmEvent, r: KafkaEventContext) => Promise<void>;
  return route.call(controller, event, recordOf(event));
}

describe('CommandsController: one route per command type', () => {
  it('routes each command type to one method through Nest, ps and flush to the acknowledgement only', () => {
    expect(routes()).toEqual({
      [CommandType.boot]: 'boot',
      [CommandType.kill]: 'kill',
      [CommandType.terminate]: 'terminate',
      [CommandType.restart]: 'restart',
      [CommandType.logs]: 'logs',
      [CommandType.ps]: 'stateCommand',
      [CommandType.flush]: 'stateCommand',
      [INVALID_EVENT]: 'invalid',
    });
  });

  it.each<[keyof typeof CommandType, string]>([
    ['boot', 'boot'],
    ['kill', 'kill'],
    ['terminate', 'terminate'],
    ['restart', 'restart'],
    ['logs', 'logs'],
    ['ps', 'no handler (the state service’s)'],
    ['flush', 'no handler (the state service’s)'],
  ])('%s: acknowledged with COMMAND_RECEIVED, then handled by %s', async (type, handler) => {
    const { controller, broadcasts, acted } = setUp();
    const event = EXAMPLE_EVENTS[CommandType[type]];
    await deliver(controller, event);
    expect(broadcasts.map((b) => [b.broadcastType, b.data])).toEqual([
      ['COMMAND_RECEIVED', { commandId: event.id, commandType: event.type }],
    ]);
    const stateOnly = type === 'ps' || type === 'flush';
    expect(acted).toEqual(stateOnly ? [] : [{ handler, data: event.data }]);
  });
});

describe('CommandsController: COMMAND_RECEIVED off the command’s way', () => {
  /** A broadcaster whose sends stay in flight until `settle` is called. */
  function slowBroadcaster(outcome: 'acked' | 'failed') {
    const settles: Array<() => void> = [];
    const broadcaster = {
      broadcast: () =>
        new Promise<void>((resolve, reject) =>
          settles.push(() =>
            outcome === 'acked' ? resolve() : reject(new Error('broker unreachable')),
          ),
        ),
    } as unknown as Broadcaster;
    return { broadcaster, settle: () => settles.forEach((s) => s()) };
  }

  function controllerWith(broadcaster: Broadcaster, acted: string[]) {
    const producer = { send: () => Promise.resolve() } as unknown as EventProducer;
    const handle = () => (acted.push('handled'), Promise.resolve([]));
    const handlers = { boot: { handle } } as unknown as BootWorkerHandlers;
    const metrics = new BootWorkerMetrics(new Registry());
    return new CommandsController(settings, producer, broadcaster, handlers, metrics);
  }

  it('carries the command out while the acknowledgement is on its way, and ends once it is acked', async () => {
    const { broadcaster, settle } = slowBroadcaster('acked');
    const acted: string[] = [];
    let done = false;
    const delivered = deliver(controllerWith(broadcaster, acted), EXAMPLE_EVENTS[CommandType.boot]);
    void delivered.then(() => (done = true));
    await new Promise(setImmediate);
    expect(acted).toEqual(['handled']);
    expect(done).toBe(false);
    settle();
    await delivered;
  });

  it('fails the command when the acknowledgement cannot be sent, so that it is redelivered', async () => {
    const { broadcaster, settle } = slowBroadcaster('failed');
    const acted: string[] = [];
    const delivered = deliver(controllerWith(broadcaster, acted), EXAMPLE_EVENTS[CommandType.boot]);
    await new Promise(setImmediate);
    settle();
    await expect(delivered).rejects.toThrow('broker unreachable');
    expect(acted).toEqual(['handled']);
  });
});

describe('CommandsController: refusals and errors', () => {
  it('answers a refused command with command.rejected naming each field', async () => {
    const refusal = { path: 'processes[0].image', message: 'is not in the allow-list' };
    const { controller, sent } = setUp(() => Promise.resolve([refusal]));
    const event = EXAMPLE_EVENTS[CommandType.boot];
    await deliver(controller, event);
    const [rejected] = sent.map((r) => JSON.parse(r.value.toString()) as KpmEvent);
    expect(rejected).toMatchObject({
      type: 'daq.kpm.command.rejected.v1',
      source: '/kpm/boot-worker/test',
      subject: event.subject,
      data: { commandId: event.id, commandType: event.type, errors: [refusal] },
    });
  });

  it("broadcasts drunc's UNHANDLED_EXCEPTION_RAISED and rethrows for the transport", async () => {
    const { controller, broadcasts } = setUp(() =>
      Promise.reject(new TypeError('cannot read properties of undefined')),
    );
    const event = EXAMPLE_EVENTS[CommandType.kill];
    await expect(deliver(controller, event)).rejects.toThrow(TypeError);
    expect(broadcasts.map((b) => b.broadcastType)).toEqual([
      'COMMAND_RECEIVED',
      'UNHANDLED_EXCEPTION_RAISED',
    ]);
    expect(broadcasts[1]).toMatchObject({
      session: event.subject,
      text: "'TypeError' exception thrown: cannot read properties of undefined",
      data: { commandId: event.id, commandType: CommandType.kill },
    });
  });

  it('broadcasts nothing for a stop (the command is redelivered)', async () => {
    const { controller, broadcasts } = setUp(() => Promise.reject(new StopRequested()));
    await expect(deliver(controller, EXAMPLE_EVENTS[CommandType.kill])).rejects.toThrow(
      StopRequested,
    );
    expect(broadcasts.map((b) => b.broadcastType)).toEqual(['COMMAND_RECEIVED']);
  });

  it('names a command without a usable id by its Kafka coordinates', async () => {
    const { controller, sent, acted } = setUp();
    const record = recordOf(EXAMPLE_EVENTS[CommandType.boot]);
    await controller.invalid(
      {
        record: record.record,
        envelope: { type: CommandType.boot, subject: 'run-7' },
        errors: [{ path: 'id', message: 'is missing' }],
      },
      record,
    );
    const [rejected] = sent.map((r) => JSON.parse(r.value.toString()) as KpmEvent);
    expect(rejected.data).toMatchObject({ commandId: 'kpm.commands/0/7' });
    expect(acted).toEqual([]);
  });
});
