import { Partitioners } from 'kafkajs';
import { BroadcastEventType, CommandType, ProcessEventType } from '@kpm/contracts';
import { BootWorkerHarness } from '../support/boot-worker-harness';

/**
 * Large boots on the real stack: time from the command record to the last `process.booted`, and
 * the consumer staying in its group throughout (a member kicked out would see the command again:
 * a second COMMAND_RECEIVED and a second boot.accepted).
 */
jest.setTimeout(600_000);

const { bootAccepted, processBooted, processBootFailed, killAccepted } = ProcessEventType;

let h: BootWorkerHarness;

beforeAll(async () => {
  h = await BootWorkerHarness.start('bws', {
    KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
    KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
  });
}, 120_000);

afterAll(() => h?.close(), 300_000);

const received = (commandId: string) =>
  h.probe
    .events(BroadcastEventType.broadcast)
    .filter(
      (e) =>
        (e.data as { broadcastType?: string }).broadcastType === 'COMMAND_RECEIVED' &&
        (e.data as { data?: { commandId?: string } }).data?.commandId === commandId,
    );

async function bootMany(
  count: number,
  whileBooting: (session: string) => Promise<void> = () => Promise.resolve(),
): Promise<{ session: string; ms: number }> {
  const session = h.session(`n${count}`);
  const processes = Array.from({ length: count }, (_, i) => ({
    name: `ru-${String(i).padStart(4, '0')}`,
    treeId: `0.${1 + (i % 10)}.${i}`,
    executableAndArguments: [{ exec: 'daq_application', args: ['--index', String(i)] }],
  }));
  const id = `boot-${count}`;
  const started = Date.now();
  await h.send(id, CommandType.boot, { session, user: 'scale', processes });
  await whileBooting(session);
  await h.factCount(processBooted, id, count, 540_000);
  const ms = Date.now() - started;
  expect(h.facts(processBootFailed, id)).toEqual([]);
  expect(h.facts(bootAccepted, id)).toHaveLength(1);
  expect(received(id)).toHaveLength(1);
  const pods = await h.pods(session);
  expect(pods).toHaveLength(count);
  const perNode = new Map<string, number>();
  for (const pod of pods)
    perNode.set(pod.spec!.nodeName!, (perNode.get(pod.spec!.nodeName!) ?? 0) + 1);
  for (const n of perNode.values()) expect(n).toBeGreaterThan(count / 6);
  console.log(
    `boot of ${count} processes: all booted after ${ms} ms (${((count * 1000) / ms).toFixed(0)} processes/s), nodes ${JSON.stringify(Object.fromEntries(perNode))}`,
  );
  return { session, ms };
}

describe('large boots', () => {
  it('boots 200 processes and kills them in one stage', async () => {
    const { session } = await bootMany(200);
    const started = Date.now();
    await h.send('kill-200', CommandType.kill, {
      query: { session },
      user: 'scale',
      gracePeriodSeconds: 5,
    });
    const accepted = await h.fact(killAccepted, 'kill-200');
    expect(accepted.data.stages).toHaveLength(1);
    expect((accepted.data.stages as string[][])[0]).toHaveLength(200);
    await h.until(
      () => h.pods(session),
      (pods) => pods.length === 0,
      180_000,
    );
    console.log(`kill of 200 processes: all pods gone after ${Date.now() - started} ms`);
  });

  it('boots 1000 processes without leaving the consumer group, other partitions going on', async () => {
    let bigBootedMeanwhile = Infinity;
    const { session, ms } = await bootMany(1000, async (big) => {
      // A session whose commands land on another partition is served while the big boot runs.
      const other = h.session(otherPartitionThan(big));
      await h.send('boot-other', CommandType.boot, {
        session: other,
        user: 'scale',
        processes: [{ name: 'ru-x', executableAndArguments: [{ exec: 'daq_application' }] }],
      });
      await h.fact(processBooted, 'boot-other');
      bigBootedMeanwhile = h.facts(processBooted, 'boot-1000').length;
    });
    expect(h.facts(processBooted, 'boot-1000').length).toBeGreaterThanOrEqual(1000);
    expect(bigBootedMeanwhile).toBeLessThan(1000);
    console.log(
      `a one-process boot on another partition completed while the 1000-process boot (${ms} ms) had booted ${bigBootedMeanwhile}`,
    );
    await h.send('terminate-1000', CommandType.terminate, { session, user: 'scale' });
    await h.until(
      () => h.namespaceExists(session),
      (exists) => !exists,
      300_000,
    );
  });
});

/** A session-name suffix whose record key lands on another of the 6 partitions than `session`. */
function otherPartitionThan(session: string): string {
  const partition = Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: 6 }, (_, id) => ({
    partitionErrorCode: 0,
    partitionId: id,
    leader: 0,
    replicas: [0],
    isr: [0],
  }));
  const of = (key: string) =>
    partition({ topic: 'commands', partitionMetadata, message: { key, value: null } });
  for (let i = 0; ; i++) {
    const candidate = `other-${i}`;
    if (of(`${session.slice(0, -'n1000'.length)}${candidate}`) !== of(session)) return candidate;
  }
}
