import type { INestApplication } from '@nestjs/common';
import {
  CommandType,
  ProcessEventType,
  TerminationType,
  processUuid,
  topicName,
} from '@kpm/contracts';
import { runService } from '@kpm/service-kit';
import { WatcherModule } from '../../apps/watcher/src/watcher.module';
import { BootWorkerHarness } from '../support/boot-worker-harness';
import { testSettings } from '../support/services';
import { stackEnv } from '../support/stack-env';
import { TopicProbe } from '../support/topic-probe';
import { daqApplication, druncController } from '../support/daq-application';

/**
 * The boot-worker with the real watcher (no janitor) on one label domain and topic prefix: the
 * pods kpm creates are the pods the watcher records and releases, so restart and terminate
 * complete, and every pod that ended has its termination on kpm.terminations.
 */
jest.setTimeout(240_000);

const { processBooted, killAccepted } = ProcessEventType;
let h: BootWorkerHarness;
let watcher: INestApplication;
let terminations: TopicProbe;

beforeAll(async () => {
  h = await BootWorkerHarness.start(
    'bww',
    { KPM_ALLOWED_IMAGES: 'kpm.invalid/*', KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0' },
    { janitor: false },
  );
  const settings = testSettings('watcher', h.prefix, { KPM_LABEL_DOMAIN: h.domain });
  watcher = await runService(WatcherModule.register(settings), settings);
  terminations = await new TopicProbe(stackEnv().brokers, [
    topicName('terminations', h.prefix),
  ]).start();
}, 180_000);

afterAll(async () => {
  await terminations?.stop();
  await watcher?.close();
  await h?.close();
}, 180_000);

const terminationOf = (podUid: string) =>
  terminations.waitFor(
    (r) => r.event?.type === TerminationType.processTerminated && r.event.data.podUid === podUid,
    60_000,
  );

it('restarts and terminates with the watcher recording and releasing each pod', async () => {
  const session = h.session('live');
  await h.send('boot-live', CommandType.boot, {
    session,
    user: 'alice',
    processes: [
      druncController('root', '0'),
      daqApplication('ru-01', '0.1.1'),
      daqApplication('ru-02', '0.1.2'),
    ],
  });
  await h.factCount(processBooted, 'boot-live', 3);
  const old = (await h.pods(session)).find((p) => p.metadata!.name === 'ru-01')!;

  await h.send('restart-live', CommandType.restart, {
    query: { session, names: ['^ru-01$'] },
    user: 'alice',
  });
  const restarted = await h.fact(processBooted, 'restart-live');
  const ended = await terminationOf(old.metadata!.uid!);
  expect(ended.event!.data).toMatchObject({
    uuid: processUuid('boot-live', 1),
    session,
    name: 'ru-01',
    user: 'alice',
    exitCode: 143,
  });
  expect((restarted.data.process as { podUid: string }).podUid).not.toBe(old.metadata!.uid);

  const live = await h.pods(session);
  await h.send('terminate-live', CommandType.terminate, { session, user: 'alice' });
  await h.fact(killAccepted, 'terminate-live');
  for (const pod of live) {
    const record = await terminationOf(pod.metadata!.uid!);
    expect(record.event!.data.uuid).toBe(pod.metadata!.labels![h.labels.uuid]);
  }
  await h.until(
    () => h.namespaceExists(session),
    (exists) => !exists,
    120_000,
  );
});
