import { Kafka, logLevel, type Producer } from 'kafkajs';
import {
  completionEventId,
  CompletionType,
  topicName,
  type CommandCompleted,
  type KpmEvent,
} from '@kpm/contracts';
import { ServiceProcess } from '../support/service-process';
import {
  bootAccepted,
  killAccepted,
  processBooted,
  record,
  terminated,
  testProcesses,
} from '../support/state-facts';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';
import { TopicProbe, type ProbedRecord } from '../support/topic-probe';

/** How fast one state replica keeps up with a 1000-process boot and kill on this machine. */
describe('state service: 1000 processes', () => {
  const prefix = uniqueTopicPrefix('state-load');
  const session = 'big-run';
  const many = testProcesses(session, 1000, 'app');
  let state: ServiceProcess;
  let probe: TopicProbe;
  let producer: Producer;

  const send = async (topic: 'process-events' | 'terminations', events: KpmEvent[]) => {
    for (let i = 0; i < events.length; i += 200) {
      await producer.send({
        topic: topicName(topic, prefix),
        acks: -1,
        messages: events.slice(i, i + 200).map(record),
      });
    }
  };
  const completion = (commandId: string) => (r: ProbedRecord) =>
    r.event?.type === CompletionType.commandCompleted &&
    r.event.id === completionEventId(commandId);

  beforeAll(async () => {
    state = new ServiceProcess('state', {
      KPM_KAFKA_BROKERS: stackEnv().brokers.join(','),
      KPM_TOPIC_PREFIX: prefix,
      KPM_INSTANCE: 'state-load',
    });
    await state.start();
    probe = await new TopicProbe(stackEnv().brokers, [topicName('completions', prefix)]).start();
    producer = new Kafka({ brokers: stackEnv().brokers, logLevel: logLevel.NOTHING }).producer({
      idempotent: true,
    });
    await producer.connect();
  }, 180_000);

  afterAll(async () => {
    await producer?.disconnect();
    await probe?.stop();
    await state?.kill('SIGTERM');
  }, 60_000);

  it('completes a 1000-process boot and a 1000-process kill, and restores them quickly', async () => {
    const bootStart = Date.now();
    await send('process-events', [
      bootAccepted('boot-1000', session, many),
      ...many.map((p) => processBooted('boot-1000', p)),
    ]);
    const boot = (await probe.waitFor(completion('boot-1000'), 60_000)).event!
      .data as unknown as CommandCompleted;
    const bootMs = Date.now() - bootStart;
    expect(boot.processes).toHaveLength(1000);

    const killStart = Date.now();
    await send('process-events', [killAccepted('kill-1000', session, many)]);
    await send(
      'terminations',
      many.map((p, i) => terminated(p, i % 7 === 0 ? 137 : 143)),
    );
    const kill = (await probe.waitFor(completion('kill-1000'), 60_000)).event!
      .data as unknown as CommandCompleted;
    const killMs = Date.now() - killStart;
    expect(kill.status).toBe('succeeded');
    expect(kill.processes.filter((p) => p.statusCode === 'DEAD')).toHaveLength(1000);

    const restartStart = Date.now();
    await state.kill('SIGTERM');
    const stoppedMs = Date.now() - restartStart;
    await state.start();
    const restartMs = Date.now() - restartStart;
    if (process.env.KPM_TEST_VERBOSE) console.log(`stopped in ${stoppedMs} ms\n${state.logs()}`);
    const rows = (await (await fetch(`${state.url}/v1/sessions`)).json()) as {
      sessions: unknown[];
    };
    expect(rows.sessions).toEqual([{ session, running: 0, dead: 1000 }]);
    console.log(
      `state, 1000 processes: boot facts → completion ${bootMs} ms; kill.accepted + 1000 terminations → completion ${killMs} ms; ` +
        `graceful restart to ready (restore of 2002 facts, 1000 rows) ${restartMs} ms`,
    );
    expect(bootMs).toBeLessThan(30_000);
    expect(killMs).toBeLessThan(30_000);
  }, 240_000);
});
