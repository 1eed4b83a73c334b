import { logEvent } from '@kpm/common';
import { Logger } from '@nestjs/common';
import { eventId } from '@kpm/contracts';
import { kpmTopicSpecs, TopicAdmin, type KafkaClient, type TopicCheck } from '@kpm/kafka';
import { Broadcaster } from './broadcaster';
import { KafkaLifecycle } from './kafka-lifecycle';
import { eventOf, recordingProducer, settingsFor } from './__fixtures__/service-kit-fakes';

function lifecycle(checks: TopicCheck[] = [], broadcastFails?: Error) {
  const settings = settingsFor('watcher');
  const { producer, calls } = recordingProducer();
  const broadcasts = recordingProducer(broadcastFails);
  const ensured: unknown[] = [];
  jest.spyOn(TopicAdmin.prototype, 'ensure').mockImplementation((specs) => {
    calls.push('ensure topics');
    ensured.push(specs);
    return Promise.resolve(checks);
  });
  const logs: unknown[] = [];
  jest.spyOn(Logger.prototype, 'log').mockImplementation((m: unknown) => void logs.push(m));
  jest.spyOn(Logger.prototype, 'warn').mockImplementation((m: unknown) => void logs.push(m));
  const subject = new KafkaLifecycle(
    {} as KafkaClient,
    producer,
    settings,
    new Broadcaster(broadcasts.producer, settings),
  );
  return { subject, calls, ensured, logs, sent: broadcasts.sent, settings };
}

describe('KafkaLifecycle', () => {
  afterEach(() => jest.restoreAllMocks());

  it('creates the topics before the producer connects, and says what it created', async () => {
    const { subject, calls, ensured, logs, settings } = lifecycle([
      { name: 'kpmtest.commands', created: true },
      { name: 'kpmtest.broadcast', created: false },
    ]);
    await subject.onApplicationBootstrap();
    expect(calls).toEqual(['ensure topics', 'connect']);
    expect(ensured).toEqual([kpmTopicSpecs(settings.kafka)]);
    expect(logs).toEqual([logEvent('topic.created', { topic: 'kpmtest.commands' })]);
  });

  it('refuses to start on drifted topics: the producer never connects', async () => {
    const { subject, calls } = lifecycle();
    const drift = new Error('topic kpmtest.processes: partitions is 3, kpm expects 6');
    jest.spyOn(TopicAdmin.prototype, 'ensure').mockRejectedValue(drift);
    await expect(subject.onApplicationBootstrap()).rejects.toBe(drift);
    expect(calls).not.toContain('connect');
  });

  it.each([
    {
      hook: 'announceReady',
      run: (s: KafkaLifecycle) => s.announceReady('http://127.0.0.1:8480'),
      type: 'SERVER_READY',
      text: 'watcher watcher-0 ready at http://127.0.0.1:8480',
    },
    {
      hook: 'beforeApplicationShutdown',
      run: (s: KafkaLifecycle) => s.beforeApplicationShutdown('SIGTERM'),
      type: 'SERVER_SHUTDOWN',
      text: 'watcher watcher-0 shutting down on SIGTERM',
    },
  ])('$hook broadcasts $type with an id of this start', async ({ run, type, text }) => {
    const { subject, sent } = lifecycle();
    await run(subject);
    const event = eventOf(sent[0].records[0]);
    expect(event.data).toMatchObject({ broadcastType: type, text });
    const kind = type === 'SERVER_READY' ? 'server-ready' : 'server-shutdown';
    const startedAt = (subject as unknown as { startedAt: number }).startedAt;
    expect(event.id).toBe(eventId(kind, 'watcher', 'watcher-0', String(startedAt)));
  });

  it('shuts down even when the SERVER_SHUTDOWN broadcast fails', async () => {
    const { subject, logs } = lifecycle([], new Error('broker gone'));
    await expect(subject.beforeApplicationShutdown()).resolves.toBeUndefined();
    expect(logs).toEqual([
      logEvent('broadcast.failed', { broadcastType: 'SERVER_SHUTDOWN', error: 'broker gone' }),
    ]);
  });

  it('disconnects the producer last', async () => {
    const { subject, calls } = lifecycle();
    await subject.onApplicationShutdown();
    expect(calls).toEqual(['disconnect']);
  });
});
