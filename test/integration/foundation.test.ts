import type { INestApplication } from '@nestjs/common';
import { eventually } from '@kpm/common';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import {
  BroadcastEventType,
  CommandType,
  DeadLetterType,
  ProcessEventType,
  topicName,
} from '@kpm/contracts';
import { runService } from '@kpm/service-kit';
import { BootWorkerModule } from '../../apps/boot-worker/src/boot-worker.module';
import { StateModule } from '../../apps/state/src/state.module';
import { WatcherModule } from '../../apps/watcher/src/watcher.module';
import { testSettings } from '../support/services';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';
import { TopicProbe, type ProbedRecord } from '../support/topic-probe';

interface BroadcastData {
  broadcastType: string;
  emitter: { service: string };
  data?: { commandId?: string };
}

const broadcastOf = (record: ProbedRecord): BroadcastData | undefined =>
  record.event?.type === BroadcastEventType.broadcast
    ? (record.event.data as unknown as BroadcastData)
    : undefined;

const received = (service: string, commandId: string) => (record: ProbedRecord) => {
  const broadcast = broadcastOf(record);
  return (
    broadcast?.broadcastType === 'COMMAND_RECEIVED' &&
    broadcast.emitter.service === service &&
    broadcast.data?.commandId === commandId
  );
};

/**
 * The foundation end to end on the real broker: a command record reaches a handler of each
 * consuming app and their answers reach topics; garbage is dead-lettered and does not block.
 */
describe('foundation: commands through the real broker', () => {
  const prefix = uniqueTopicPrefix('foundation');
  const apps: INestApplication[] = [];
  let probe: TopicProbe;
  let producer: Producer;

  beforeAll(async () => {
    // A private label domain too: the watcher must not act on other suites' pods.
    const own = { KPM_LABEL_DOMAIN: `${prefix}.test.daq` };
    const boot = testSettings('boot-worker', prefix, own);
    const state = testSettings('state', prefix, own);
    const watcher = testSettings('watcher', prefix, own);
    // Sequential: the first start creates the topics the others then find.
    apps.push(
      await runService(BootWorkerModule.register(boot), boot, BootWorkerModule.consumer(boot)),
    );
    apps.push(await runService(StateModule.register(state), state, StateModule.consumer(state)));
    apps.push(await runService(WatcherModule.register(watcher), watcher));
    probe = await new TopicProbe(stackEnv().brokers, [
      topicName('broadcast', prefix),
      topicName('process-events', prefix),
      topicName('dead-letters', prefix),
    ]).start();
    producer = new Kafka({ brokers: stackEnv().brokers, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
  }, 120_000);

  afterAll(async () => {
    await producer?.disconnect();
    await probe?.stop();
    await Promise.all(apps.map((app) => app.close()));
  }, 60_000);

  /** A command as any client writes it: raw CloudEvent JSON, so a test can also send invalid data. */
  const command = (id: string, type: string, data: unknown) => ({
    key: 'session-a',
    value: JSON.stringify({
      specversion: '1.0',
      id,
      source: '/kpm/test',
      type,
      subject: 'session-a',
      data,
    }),
    headers: { 'content-type': 'application/cloudevents+json' },
  });

  it('announces each service with SERVER_READY', async () => {
    for (const service of ['boot-worker', 'state', 'watcher']) {
      await probe.waitFor((record) => {
        const broadcast = broadcastOf(record);
        return broadcast?.broadcastType === 'SERVER_READY' && broadcast.emitter.service === service;
      });
    }
  });

  it('hands a command to the boot-worker and the state service, whose answers land on kpm.broadcast', async () => {
    await producer.send({
      topic: topicName('commands', prefix),
      messages: [command('cmd-ps-1', CommandType.ps, { query: { session: 'session-a' } })],
    });
    await probe.waitFor(received('boot-worker', 'cmd-ps-1'));
    await probe.waitFor(received('state', 'cmd-ps-1'));
  });

  it('dead-letters garbage bytes with their coordinates and still handles the next valid command', async () => {
    const garbage = Buffer.from([0xff, 0x00, 0x13, 0x37, 0x7b]);
    await producer.send({
      topic: topicName('commands', prefix),
      messages: [
        { key: 'session-a', value: garbage },
        command('cmd-ps-2', CommandType.ps, { query: { session: 'session-a' } }),
      ],
    });
    const letter = await probe.waitFor(
      (record) => record.event?.type === DeadLetterType.deadLetter,
    );
    const data = letter.event!.data as {
      reason: string;
      valueBase64: string;
      source: { topic: string; partition: number; offset: string };
    };
    expect(Buffer.from(data.valueBase64, 'base64')).toEqual(garbage);
    expect(data.source.topic).toBe(topicName('commands', prefix));
    expect(data.source.offset).toMatch(/^\d+$/);
    expect(data.reason).toMatch(/JSON/i);
    expect(letter.key).toBe('session-a');
    await probe.waitFor(received('boot-worker', 'cmd-ps-2'));
    await probe.waitFor(received('state', 'cmd-ps-2'));
  });

  it('rejects an invalid command naming the field, without blocking the partition', async () => {
    await producer.send({
      topic: topicName('commands', prefix),
      messages: [
        command('cmd-bad-boot', CommandType.boot, {
          session: 'session-a',
          user: 'daq',
          processes: [{ name: 'two words', executableAndArguments: [{ exec: 'true', args: [] }] }],
        }),
        command('cmd-ps-3', CommandType.ps, { query: {} }),
      ],
    });
    const rejected = await probe.waitFor(
      (record) =>
        record.event?.type === ProcessEventType.commandRejected &&
        (record.event.data as { commandId: string }).commandId === 'cmd-bad-boot',
    );
    const errors = (rejected.event!.data as { errors: Array<{ path: string; message: string }> })
      .errors;
    expect(errors.map((error) => error.path)).toContain('processes[0].name');
    await probe.waitFor(received('boot-worker', 'cmd-ps-3'));
  });

  it('serves /healthz, /readyz and /metrics', async () => {
    for (const app of apps) {
      const url = await app.getUrl();
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      // Ready comes and goes with the partitions: a transaction that fails on a loaded broker
      // restores its partition, not ready meanwhile. The body names the part and why.
      await eventually(
        async () => {
          const ready = await fetch(`${url}/readyz`);
          const body = await ready.text();
          expect({ status: ready.status, body }).toMatchObject({ status: 200 });
        },
        { what: `${url}/readyz answers 200`, timeoutMs: 30_000 },
      );
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/kpm_process_cpu_user_seconds_total/);
    }
  });
});
