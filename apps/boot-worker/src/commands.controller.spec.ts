import { buildEvent, CommandType, type KpmEvent } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import type { EventProducer } from '@kpm/kafka';
import { KafkaEventContext } from '@kpm/kafka/nest';
import type { Broadcaster, BroadcastInput } from '@kpm/service-kit';
import { StopRequested } from './commands/command-context';
import type { CommandRouter } from './commands/command-router';
import { CommandsController } from './commands.controller';

const settings = {
  service: 'boot-worker',
  instance: 'test',
  kafka: { topicPrefix: 'kpm' },
} as unknown as KpmSettings;

const command: KpmEvent = buildEvent({
  id: '7d7c0c3e-1e1b-4c43-9a43-3f2f1f9f0a01',
  type: CommandType.ps,
  source: '/test',
  subject: 'run-7',
  data: { query: {} },
});

function setUp(failure: Error) {
  const sent: BroadcastInput[] = [];
  const broadcaster = {
    broadcast: (input: BroadcastInput) => Promise.resolve(void sent.push(input)),
  } as unknown as Broadcaster;
  const router = { route: () => Promise.reject(failure) } as unknown as CommandRouter;
  const producer = { send: () => Promise.resolve() } as unknown as EventProducer;
  const controller = new CommandsController(settings, producer, broadcaster, router);
  const record = { topic: 'kpm.commands', partition: 0, offset: '0', key: 'run-7' };
  const context = new KafkaEventContext([
    record as never,
    { heartbeat: () => Promise.resolve(), signal: new AbortController().signal },
  ]);
  return { sent, received: () => controller.received(command, context) };
}

describe('CommandsController: unexpected errors', () => {
  it("broadcasts drunc's UNHANDLED_EXCEPTION_RAISED and rethrows for the transport", async () => {
    const { sent, received } = setUp(new TypeError('cannot read properties of undefined'));
    await expect(received()).rejects.toThrow(TypeError);
    expect(sent.map((b) => b.broadcastType)).toEqual([
      'COMMAND_RECEIVED',
      'UNHANDLED_EXCEPTION_RAISED',
    ]);
    expect(sent[1]).toMatchObject({
      session: 'run-7',
      text: "'TypeError' exception thrown: cannot read properties of undefined",
      data: { commandId: command.id, commandType: CommandType.ps },
    });
  });

  it('broadcasts nothing for a stop (the command is redelivered)', async () => {
    const { sent, received } = setUp(new StopRequested());
    await expect(received()).rejects.toThrow(StopRequested);
    expect(sent.map((b) => b.broadcastType)).toEqual(['COMMAND_RECEIVED']);
  });
});
