import { eventually } from '@kpm/common';
import type { INestApplication } from '@nestjs/common';
import { CommandType, topicName, type CommandCompleted } from '@kpm/contracts';
import { runService } from '@kpm/service-kit';
import { StateModule } from '../../apps/state/src/state.module';
import { WatcherModule } from '../../apps/watcher/src/watcher.module';
import { BootWorkerHarness } from '../support/boot-worker-harness';
import { testSettings } from '../support/services';
import { isCompletion } from '../support/state-bench';
import { stackEnv } from '../support/stack-env';
import { TopicProbe } from '../support/topic-probe';

/**
 * The state service with the real boot-worker and watcher on the local stack (kwok pods): the
 * completions a DAQ operator waits for — boot, a process that exits on its own, restart (same
 * uuid, new pod), terminate — each exactly once, with the exit codes the simulator produced.
 */
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

let h: BootWorkerHarness;
let watcher: INestApplication;
let state: INestApplication;
let completions: TopicProbe;

beforeAll(async () => {
  h = await BootWorkerHarness.start(
    'state-e2e',
    { KPM_ALLOWED_IMAGES: 'kpm.invalid/*', KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0' },
    { janitor: false },
  );
  const watcherSettings = testSettings('watcher', h.prefix, { KPM_LABEL_DOMAIN: h.domain });
  watcher = await runService(WatcherModule.register(watcherSettings), watcherSettings);
  const stateSettings = testSettings('state', h.prefix);
  state = await runService(
    StateModule.register(stateSettings),
    stateSettings,
    StateModule.consumer(stateSettings),
  );
  completions = await new TopicProbe(stackEnv().brokers, [
    topicName('completions', h.prefix),
  ]).start();
}, 180_000);

afterAll(async () => {
  await completions?.stop();
  await state?.close();
  await watcher?.close();
  await h?.close();
}, 180_000);

const completed = async (commandId: string): Promise<CommandCompleted> =>
  (await completions.waitFor(isCompletion(commandId), 90_000)).event!
    .data as unknown as CommandCompleted;

it('completes boot, restart and terminate of a live session exactly once with real exit codes', async () => {
  const session = h.session('live');
  await h.send('e2e-boot', CommandType.boot, {
    session,
    user: 'alice',
    processes: [
      controller('root', '0'),
      app('ru-01', '0.1.1'),
      app('ru-02', '0.1.2', { 'sim.kpm.daq/exit-code': '3', 'sim.kpm.daq/run-ms': '1500' }),
    ],
  });
  const boot = await completed('e2e-boot');
  expect(boot.status).toBe('succeeded');
  expect(boot.processes.map((p) => p.description.metadata.name).sort()).toEqual([
    'root',
    'ru-01',
    'ru-02',
  ]);
  const ru01 = boot.processes.find((p) => p.description.metadata.name === 'ru-01')!;

  // ru-02 exits on its own with 3: the table shows it DEAD (polling the API with a deadline).
  const url = await state.getUrl();
  await eventually(
    async () => {
      const answer = (await (
        await fetch(`${url}/v1/processes?session=${session}&name=ru-02`)
      ).json()) as { processes: Array<{ statusCode: string; returnCode?: number }> };
      expect(answer.processes[0]).toMatchObject({ statusCode: 'DEAD', returnCode: 3 });
    },
    { what: 'ru-02 DEAD with 3', timeoutMs: 60_000, everyMs: 250 },
  );

  await h.send('e2e-restart', CommandType.restart, {
    query: { session, names: ['^ru-01$'] },
    user: 'alice',
  });
  const restart = await completed('e2e-restart');
  expect(restart.status).toBe('succeeded');
  expect(restart.processes).toHaveLength(1);
  expect(restart.processes[0]).toMatchObject({ uuid: ru01.uuid, statusCode: 'RUNNING' });
  expect(restart.processes[0].podUid).not.toBe(ru01.podUid);

  // `booted` means created and scheduled; terminate only once the new ru-01 really runs, so its
  // end is a SIGTERM (143) rather than a deletion before start (-1).
  await eventually(
    async () => {
      const pod = await h.core.readNamespacedPod({ namespace: session, name: 'ru-01' });
      const started = pod.status?.containerStatuses?.every((c) => c.state?.running) ?? false;
      return pod.metadata?.uid === restart.processes[0].podUid && started;
    },
    { what: 'the restarted ru-01 running', timeoutMs: 60_000, everyMs: 250 },
  );

  await h.send('e2e-terminate', CommandType.terminate, { session, user: 'alice' });
  const terminate = await completed('e2e-terminate');
  expect(terminate.status).toBe('succeeded');
  const codes = Object.fromEntries(
    terminate.processes.map((p) => [p.description.metadata.name, [p.statusCode, p.returnCode]]),
  );
  expect(codes).toMatchObject({ root: ['DEAD', 143], 'ru-01': ['DEAD', 143] });
  for (const id of ['e2e-boot', 'e2e-restart', 'e2e-terminate']) {
    expect(completions.records.filter(isCompletion(id))).toHaveLength(1);
  }
});
