/**
 * @kpm/client's Kafka transport on the real broker, with a stand-in for the state service that
 * answers each command with a completion as fast as it can: the shared completion consumer must
 * never miss one, a stream must start where it says, and failures must be quick and clear.
 * (The client against the real services is proven by cli.test.ts.)
 */
import { Kafka, logLevel, type Consumer, type Producer } from 'kafkajs';
import {
  buildEvent,
  CompletionType,
  completionEventId,
  encodeEvent,
  EXAMPLE_EVENTS,
  parseRecord,
  TerminationType,
  topicName,
  topicSpecs,
  type CommandCompleted,
} from '@kpm/contracts';
import { TopicAdmin } from '@kpm/kafka';
import { connectProcessManager, MissingTopicError, type ProcessManagerClient } from '@kpm/client';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';

const prefix = uniqueTopicPrefix('client');
const brokers = stackEnv().brokers;
const kafka = new Kafka({ clientId: 'client-test', brokers, logLevel: logLevel.NOTHING });
const boot = (session: string) => ({
  session,
  user: 'alice',
  processes: [{ name: 'ru-01', executableAndArguments: [{ exec: 'sleep' }] }],
});

/** Answers every command on the private commands topic with a succeeded completion. */
async function startStandIn(): Promise<{ consumer: Consumer; producer: Producer }> {
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  const consumer = kafka.consumer({ groupId: `${prefix}-stand-in` });
  await consumer.connect();
  await consumer.subscribe({ topic: topicName('commands', prefix), fromBeginning: true });
  // A batch of commands is answered in one request, so the stand-in is not the bottleneck.
  await consumer.run({
    eachBatch: async ({ batch }) => {
      const answers = batch.messages.flatMap((message) => {
        const parsed = parseRecord(message.value);
        if (!parsed.ok) return [];
        const command = parsed.event;
        const data: CommandCompleted = {
          commandId: command.id,
          commandType: command.type,
          session: command.subject!,
          status: 'succeeded',
          processes: [],
          completedAt: new Date().toISOString(),
          durationMs: 0,
        };
        const event = buildEvent({
          type: CompletionType.commandCompleted,
          id: completionEventId(command.id),
          source: '/kpm/test/stand-in',
          subject: command.subject,
          data,
        });
        return [encodeEvent(event)];
      });
      await producer.send({ topic: topicName('completions', prefix), messages: answers });
    },
  });
  return { consumer, producer };
}

describe('client transport on the real broker', () => {
  let client: ProcessManagerClient;
  let standIn: { consumer: Consumer; producer: Producer };

  beforeAll(async () => {
    await new TopicAdmin(kafka).ensure(topicSpecs({ prefix }));
    standIn = await startStandIn();
    client = connectProcessManager({ brokers, topicPrefix: prefix, clientId: 'kpm-client-test' });
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await standIn?.consumer.disconnect();
    await standIn?.producer.disconnect();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: topicSpecs({ prefix }).map((t) => t.topic) });
    await admin.disconnect();
  }, 60_000);

  it('receives the completion of every one of 1000 commands sent at once, over one consumer', async () => {
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        client.boot(boot(`s-${i % 12}`), { wait: true, timeoutMs: 60_000 }),
      ),
    );
    const ids = new Set(results.map((r) => r.completion?.commandId));
    expect(ids.size).toBe(1000);
    expect(results.every((r) => r.completion?.commandId === r.commandId)).toBe(true);
    console.log(`1000 concurrent commands completed in ${Date.now() - started} ms`);
  }, 90_000);

  it('completes sequential commands quickly (round trip through the broker)', async () => {
    const times: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      await client.ps({ session: 'session-a' });
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const p50 = times[Math.floor(times.length / 2)];
    console.log(
      `ps round trip: p50 ${p50.toFixed(1)} ms, max ${times[times.length - 1].toFixed(1)} ms`,
    );
    expect(p50).toBeLessThan(1000);
  }, 60_000);

  it("starts an event stream at the topics' end, or replays from the beginning", async () => {
    const producer = kafka.producer();
    await producer.connect();
    const example = EXAMPLE_EVENTS[TerminationType.processTerminated];
    const send = (id: string) =>
      producer.send({
        topic: topicName('terminations', prefix),
        messages: [encodeEvent({ ...example, id })],
      });
    await send('old-1');
    const live = client.events({ session: example.subject, topics: ['terminations'] });
    await live.ready();
    await send('new-1');
    expect((await live.next()).value?.id).toBe('new-1');
    await live.close();

    const replay = client.events({
      session: example.subject,
      topics: ['terminations'],
      fromBeginning: true,
    });
    const seen: string[] = [];
    for await (const event of replay) {
      seen.push(event.id);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual(['old-1', 'new-1']);
    await producer.disconnect();
  }, 60_000);

  it('waits for completions and reads events in no consumer group: no join to wait for', async () => {
    // A broker holds a new group's first join for group.initial.rebalance.delay.ms (3 s by
    // default): a client that joined a group of its own paid it before its first command.
    const live = client.events({ session: 'session-a', topics: ['terminations'] });
    await live.ready();
    await client.ps({ session: 'session-a' });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { groups } = await admin.listGroups();
      expect(groups.filter((g) => g.groupId.startsWith('kpm-client-test'))).toEqual([]);
    } finally {
      await admin.disconnect();
      await live.close();
    }
  });

  it('hands out committed records only: an aborted transaction and its markers are left out', async () => {
    const producer = kafka.producer({
      transactionalId: `${prefix}-aborting`,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const example = EXAMPLE_EVENTS[TerminationType.processTerminated];
    const inTransaction = async (id: string, end: 'commit' | 'abort') => {
      const transaction = await producer.transaction();
      await transaction.send({
        topic: topicName('terminations', prefix),
        messages: [encodeEvent({ ...example, id })],
      });
      await transaction[end]();
    };
    const live = client.events({ session: example.subject, topics: ['terminations'] });
    await live.ready();
    await inTransaction('aborted-1', 'abort');
    await inTransaction('committed-1', 'commit');
    await inTransaction('committed-2', 'commit');
    expect((await live.next()).value?.id).toBe('committed-1');
    expect((await live.next()).value?.id).toBe('committed-2');
    await live.close();
    await producer.disconnect();
  }, 60_000);

  it('says which topic is missing when the services never created them', async () => {
    const stray = connectProcessManager({ brokers, topicPrefix: `${prefix}-none` });
    try {
      const error = await stray.ps().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MissingTopicError);
      expect((error as Error).message).toContain(`topic ${prefix}-none.completions does not exist`);
    } finally {
      await stray.close();
    }
  });

  it('fails within seconds when the broker is unreachable', async () => {
    const started = Date.now();
    const nowhere = connectProcessManager({ brokers: ['127.0.0.1:1'], retries: 1 });
    try {
      await expect(nowhere.boot(boot('session-a'))).rejects.toThrow(/ECONNREFUSED|Connection/i);
    } finally {
      await nowhere.close();
    }
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
