import { BroadcastEventType, CommandType, ProcessEventType, processUuid } from '@kpm/contracts';
import { BootWorkerHarness } from '../support/boot-worker-harness';

/**
 * A boot-worker SIGKILLed in the middle of a boot: the command was not committed, so the next
 * boot-worker of the group gets it again and finishes it — every process exactly one pod, every
 * fact the same id as before the crash.
 */
jest.setTimeout(300_000);

const { bootAccepted, processBooted, processBootFailed } = ProcessEventType;
const COUNT = 300;

let h: BootWorkerHarness;

beforeAll(async () => {
  h = await BootWorkerHarness.start(
    'bwc',
    {
      KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
      KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
      // Slow enough to be caught mid-boot.
      KPM_BOOT_CONCURRENCY: '4',
    },
    { child: true },
  );
}, 180_000);

afterAll(() => h?.close(), 300_000);

const bootedUuids = () =>
  new Set(
    h.facts(processBooted, 'boot-crash').map((e) => (e.data.process as { uuid: string }).uuid),
  );

it('resumes a boot after a crash: no process twice, the same fact ids', async () => {
  const session = h.session('crash');
  const processes = Array.from({ length: COUNT }, (_, i) => ({
    name: `ru-${String(i).padStart(3, '0')}`,
    treeId: `0.1.${i}`,
    executableAndArguments: [{ exec: 'daq_application' }],
  }));
  await h.send('boot-crash', CommandType.boot, { session, user: 'crash', processes });
  await h.waitUntil(() => bootedUuids().size >= 40, 120_000);
  await h.child!.kill('SIGKILL');
  const beforeCrash = bootedUuids().size;
  expect(beforeCrash).toBeLessThan(COUNT);
  const idsBeforeCrash = new Map(
    h
      .facts(processBooted, 'boot-crash')
      .map((e) => [e.id, (e.data.process as { podUid: string }).podUid]),
  );

  await h.child!.start();
  await h.waitUntil(() => bootedUuids().size === COUNT, 240_000);
  console.log(
    `crashed after ${beforeCrash} of ${COUNT} processes had booted; the next boot-worker finished the rest`,
  );

  const booted = h.facts(processBooted, 'boot-crash');
  const uuidOfId = new Map<string, string>();
  for (const fact of booted) {
    const { uuid, podUid } = fact.data.process as { uuid: string; podUid: string };
    expect(uuidOfId.get(fact.id) ?? uuid).toBe(uuid);
    uuidOfId.set(fact.id, uuid);
    // A re-emitted fact names the pod the first emission named: nothing was created twice.
    if (idsBeforeCrash.has(fact.id)) expect(podUid).toBe(idsBeforeCrash.get(fact.id));
  }
  expect(uuidOfId.size).toBe(COUNT);
  expect(new Set(h.facts(bootAccepted, 'boot-crash').map((e) => e.id)).size).toBe(1);
  expect(h.facts(processBootFailed, 'boot-crash')).toEqual([]);

  const pods = await h.pods(session);
  expect(pods).toHaveLength(COUNT);
  expect(new Set(pods.map((p) => p.metadata!.labels![h.labels.uuid]))).toEqual(
    new Set(processes.map((_, i) => processUuid('boot-crash', i))),
  );
  const received = h.probe
    .events(BroadcastEventType.broadcast)
    .filter((e) => (e.data as { data?: { commandId?: string } }).data?.commandId === 'boot-crash');
  expect(received.length).toBeGreaterThanOrEqual(2); // the command really was delivered again
});
