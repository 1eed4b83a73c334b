import { eventually } from '@kpm/common';
import { topicName } from '@kpm/contracts';
import { PodLab } from '../support/kpm-pods';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';
import { terminationsSeen } from '../support/terminations';
import { TopicProbe } from '../support/topic-probe';
import { ensureTopics, watcherEnv } from '../support/watcher-env';
import { WatcherProcess } from '../support/watcher-process';

// Creating, running and ending 1000 pods takes minutes on a small machine.
jest.setTimeout(900_000);

const PODS = 1000;

/**
 * A thousand pods end at once (all deleted together: each gets SIGTERM and exits 143) and the
 * watcher keeps up: every termination is published and every finalizer released, and
 * the time from the last pod's end to the last record stays small. Prints the measured rates.
 */
describe('watcher: 1000 pods ending at once', () => {
  const prefix = uniqueTopicPrefix('wload');
  let lab: PodLab;
  let probe: TopicProbe;
  let watcher: WatcherProcess;

  beforeAll(async () => {
    lab = await PodLab.open('wload');
    await ensureTopics(prefix);
    probe = await new TopicProbe(stackEnv().brokers, [topicName('terminations', prefix)]).start();
    watcher = new WatcherProcess(
      'watcher-load',
      watcherEnv({ prefix, lab, watcher: { watchInactivitySeconds: 90 } }),
    );
    await watcher.start();
    await watcher.leading();
  }, 180_000);

  afterAll(async () => {
    await watcher?.kill('SIGTERM');
    await probe?.stop();
    await lab?.close();
  }, 300_000);

  async function countPods(predicate: (phase: string | undefined) => boolean): Promise<number> {
    const list = await lab.core.listNamespacedPod({ namespace: lab.namespace });
    return list.items.filter((pod) => predicate(pod.status?.phase)).length;
  }

  /** When `check` first held (polled every 50 ms: the times this suite reports). */
  async function until(
    what: string,
    check: () => Promise<boolean> | boolean,
    timeoutMs: number,
  ): Promise<number> {
    await eventually(check, { what, timeoutMs, everyMs: 50 });
    return Date.now();
  }

  async function deleteAll(names: string[], parallel: number): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < names.length) await lab.delete(names[next++], 5);
    };
    await Promise.all(Array.from({ length: parallel }, worker));
  }

  it('publishes all 1000 terminations and releases every finalizer, keeping up with the pods', async () => {
    const names = Array.from({ length: PODS }, (_, i) => `load-${i}`);
    const createdAt = Date.now();
    const pods = await lab.createMany(names, { sim: { 'sim.kpm.daq/stop-ms': '0' } }, 16);
    const createMs = Date.now() - createdAt;
    await until(
      'all pods running',
      async () => (await countPods((phase) => phase === 'Running')) === PODS,
      300_000,
    );

    const uids = new Set(pods.map((pod) => pod.metadata!.uid!));
    const ours = () => terminationsSeen(probe).filter((t) => uids.has(t.data.podUid));
    // "At once": every pod is deleted (SIGTERM, then exit 143) by 50 concurrent requests; the
    // API server's delete-collection would do it one by one.
    const deletedAt = Date.now();
    const deleting = deleteAll(names, 50).then(() => Date.now());
    const firstAt = await until('first termination', () => ours().length > 0, 120_000);
    const lastAt = await until(
      'all terminations',
      () => new Set(ours().map((t) => t.id)).size === PODS,
      600_000,
    );
    const deletesDoneAt = await deleting;
    const goneAt = await until(
      'all pods released and gone',
      async () => (await countPods(() => true)) === 0,
      600_000,
    );

    const records = ours();
    expect(new Set(records.map((t) => t.id)).size).toBe(PODS);
    expect(records.every((t) => t.data.exitCode === 143 && t.data.signal === 15)).toBe(true);
    const finished = records.map((t) => Date.parse(t.data.finishedAt!));
    const lastFinish = Math.max(...finished);
    const detectLag = records
      .map((t) => Date.parse(t.data.observedAt) - Date.parse(t.data.finishedAt!))
      .sort((a, b) => a - b);
    const lagCount = (await watcher.metric('kpm_watcher_publication_lag_seconds_count')) ?? 0;
    const lagSum = (await watcher.metric('kpm_watcher_publication_lag_seconds_sum')) ?? 0;
    const report = {
      pods: PODS,
      createMs,
      podsEndedOverMs: lastFinish - Math.min(...finished),
      deleteRequestsMs: deletesDoneAt - deletedAt,
      deleteToFirstRecordMs: firstAt - deletedAt,
      deleteToLastRecordMs: lastAt - deletedAt,
      lastPodEndToLastRecordMs: lastAt - lastFinish,
      deleteToAllGoneMs: goneAt - deletedAt,
      recordsPerSecond: Math.round((PODS * 1000) / (lastAt - firstAt)),
      detectionLagMs: {
        p50: detectLag[Math.floor(PODS / 2)],
        p99: detectLag[Math.floor(PODS * 0.99)],
        max: detectLag[PODS - 1],
      },
      meanPublicationLagMs: lagCount ? Math.round((lagSum / lagCount) * 1000) : undefined,
      duplicates: records.length - PODS,
    };
    console.log(`watcher throughput: ${JSON.stringify(report)}`);
    // Keeping up: the last record follows the last pod's end by seconds, not a backlog of minutes.
    expect(report.lastPodEndToLastRecordMs).toBeLessThan(30_000);
  });

  it('catches up with 1000 pods that ended while no watcher ran: publishes and releases them all at once', async () => {
    await watcher.kill('SIGTERM');
    const names = Array.from({ length: PODS }, (_, i) => `backlog-${i}`);
    const pods = await lab.createMany(names, { sim: { 'sim.kpm.daq/exit-code': '0' } }, 16);
    await until(
      'all pods ended',
      async () => (await countPods((phase) => phase === 'Succeeded')) === PODS,
      600_000,
    );

    const uids = new Set(pods.map((pod) => pod.metadata!.uid!));
    const ours = () => terminationsSeen(probe).filter((t) => uids.has(t.data.podUid));
    const startedAt = Date.now();
    watcher = new WatcherProcess(
      'watcher-load',
      watcherEnv({ prefix, lab, watcher: { watchInactivitySeconds: 90 } }),
    );
    await watcher.start();
    const firstAt = await until('first termination', () => ours().length > 0, 120_000);
    const lastAt = await until(
      'all terminations',
      () => new Set(ours().map((t) => t.id)).size === PODS,
      600_000,
    );
    const releasedAt = await until(
      'all finalizers released',
      async () =>
        (await lab.core.listNamespacedPod({ namespace: lab.namespace })).items.every(
          (pod) => !lab.holdsFinalizer(pod),
        ),
      600_000,
    );
    const records = ours();
    expect(new Set(records.map((t) => t.id)).size).toBe(PODS);
    expect(records.every((t) => t.data.exitCode === 0 && t.data.detectedBy === 'reconcile')).toBe(
      true,
    );
    // The list is when the watcher saw them all ended: every record's observedAt.
    const listedAt = Math.min(...records.map((t) => Date.parse(t.data.observedAt)));
    const report = {
      pods: PODS,
      processStartToListMs: listedAt - startedAt,
      listToLastRecordMs: lastAt - listedAt,
      recordsPerSecond: Math.round((PODS * 1000) / Math.max(1, lastAt - listedAt)),
      listToAllReleasedMs: releasedAt - listedAt,
      releasesPerSecond: Math.round((PODS * 1000) / Math.max(1, releasedAt - listedAt)),
      duplicates: records.length - PODS,
    };
    console.log(`watcher catch-up: ${JSON.stringify(report)}`);
    expect(firstAt).toBeGreaterThanOrEqual(startedAt);
    expect(report.listToLastRecordMs).toBeLessThan(30_000);
  });
});
