import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { terminationEventId, topicName } from '@kpm/contracts';
import { runService } from '@kpm/service-kit';
import { WatcherModule } from '../../apps/watcher/src/watcher.module';
import { PodLab } from '../support/kpm-pods';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';
import { terminationOf, terminationsSeen } from '../support/terminations';
import { TopicProbe } from '../support/topic-probe';
import { watcherSettings } from '../support/watcher-env';

// Longer than the global 120 s: pods run, end and are waited for on the real stack.
jest.setTimeout(180_000);
/**
 * The watcher end to end on the real stack: kpm-labelled pods made directly through the API run
 * the simulation contract, and each exit-code rule of docs/design.md §6.5 must arrive on
 * kpm.terminations with the finalizer released afterwards.
 */
describe('watcher: every termination with its exit code', () => {
  const prefix = uniqueTopicPrefix('watcher');
  let lab: PodLab;
  let app: INestApplication;
  let probe: TopicProbe;

  beforeAll(async () => {
    lab = await PodLab.open('wexit');
    const settings = watcherSettings({ prefix, lab });
    app = await runService(WatcherModule.register(settings), settings);
    probe = await new TopicProbe(stackEnv().brokers, [topicName('terminations', prefix)]).start();
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await probe?.stop();
    await lab?.close();
  }, 60_000);

  /** The pod holds no termination-record finalizer any more (or is gone). */
  const released = (name: string) => lab.waitForPod(name, (pod) => !lab.holdsFinalizer(pod));

  it("reports a pod that exits 0 as 0 GracefulShutdown (drunc's word), keyed by session, with the id from its uid, then releases it", async () => {
    const uuid = randomUUID();
    const pod = await lab.create('exit-zero', {
      uuid,
      sim: { 'sim.kpm.daq/exit-code': '0', 'sim.kpm.daq/run-ms': '200' },
    });
    const seen = await terminationOf(probe, pod.metadata!.uid!);
    expect(seen.id).toBe(terminationEventId(pod.metadata!.uid!));
    expect(seen.key).toBe(lab.session);
    expect(seen.data).toMatchObject({
      uuid,
      session: lab.session,
      name: 'exit-zero',
      user: 'daq-test',
      namespace: lab.namespace,
      podName: 'exit-zero',
      podUid: pod.metadata!.uid,
      exitCode: 0,
      reason: 'GracefulShutdown',
      phase: 'Succeeded',
      detectedBy: 'watch',
    });
    expect(seen.data.signal).toBeUndefined();
    expect(seen.data.failure).toBeUndefined();
    expect(Date.parse(seen.data.finishedAt!)).toBeGreaterThanOrEqual(
      Date.parse(seen.data.startedAt!),
    );
    const after = await released('exit-zero');
    expect(after?.status?.phase).toBe('Succeeded');
  });

  it('reports exit 3 as Error with the failing container', async () => {
    const pod = await lab.create('exit-three', {
      sim: { 'sim.kpm.daq/exit-code': '3', 'sim.kpm.daq/run-ms': '300' },
    });
    const seen = await terminationOf(probe, pod.metadata!.uid!);
    expect(seen.data).toMatchObject({
      exitCode: 3,
      reason: 'Error',
      phase: 'Failed',
      failure: { containerName: 'exit-three', containerType: 'main', containerReason: 'Error' },
    });
    expect(seen.data.signal).toBeUndefined();
    await released('exit-three');
  });

  it('reports a running pod deleted with grace 0 as 137 (SIGKILL), and the pod goes once released', async () => {
    const pod = await lab.create('killed');
    await lab.waitForPod('killed', (p) => p?.status?.phase === 'Running');
    await lab.delete('killed', 0);
    const seen = await terminationOf(probe, pod.metadata!.uid!);
    expect(seen.data).toMatchObject({ exitCode: 137, signal: 9, reason: 'Error', phase: 'Failed' });
    await lab.waitForPod('killed', (p) => p === undefined);
  });

  it('reports a running pod deleted with a grace period as 143 (SIGTERM)', async () => {
    const pod = await lab.create('stopped', { sim: { 'sim.kpm.daq/stop-ms': '300' } });
    await lab.waitForPod('stopped', (p) => p?.status?.phase === 'Running');
    await lab.delete('stopped', 5);
    const seen = await terminationOf(probe, pod.metadata!.uid!);
    expect(seen.data).toMatchObject({ exitCode: 143, signal: 15, reason: 'Error' });
    await lab.waitForPod('stopped', (p) => p === undefined);
  });

  it('reports an image that cannot be pulled as -1 ErrImagePull while the pod stays Pending', async () => {
    const pod = await lab.create('bad-image', { image: 'kpm.invalid/bad-image:latest' });
    const seen = await terminationOf(probe, pod.metadata!.uid!);
    expect(seen.data).toMatchObject({
      exitCode: -1,
      reason: 'ErrImagePull',
      phase: 'Pending',
      failure: {
        containerName: 'bad-image',
        containerType: 'main',
        containerReason: 'ErrImagePull',
      },
    });
    expect(seen.data.failure?.containerMessage).toMatch(/bad-image/);
    const after = await released('bad-image');
    expect(after?.status?.phase).toBe('Pending');
  });

  it('reports a pod deleted before it ever ran as -1 DeletedBeforeStart', async () => {
    const pod = await lab.create('never-ran', { unschedulable: true });
    await lab.delete('never-ran', 30);
    const seen = await terminationOf(probe, pod.metadata!.uid!);
    expect(seen.data).toMatchObject({
      exitCode: -1,
      reason: 'DeletedBeforeStart',
      phase: 'Pending',
    });
    await lab.waitForPod('never-ran', (p) => p === undefined);
  });

  it('reports a running pod deleted without its finalizer as -1 PodDeleted (from the DELETED event)', async () => {
    const pod = await lab.create('unheld', { withoutFinalizer: true });
    await lab.waitForPod('unheld', (p) => p?.status?.phase === 'Running');
    await lab.delete('unheld', 0);
    const seen = await terminationOf(probe, pod.metadata!.uid!);
    expect(seen.data).toMatchObject({ exitCode: -1, reason: 'PodDeleted', phase: 'Running' });
  });

  it('reports a restarted process (same uuid, new pod) a second time, by its new pod uid', async () => {
    const uuid = randomUUID();
    const sim = { 'sim.kpm.daq/exit-code': '0', 'sim.kpm.daq/run-ms': '200' };
    const first = await lab.create('restarted', { uuid, sim });
    await terminationOf(probe, first.metadata!.uid!);
    await lab.delete('restarted', 0);
    await lab.waitForPod('restarted', (p) => p === undefined);
    const second = await lab.create('restarted', {
      uuid,
      sim: { ...sim, 'sim.kpm.daq/exit-code': '2' },
    });
    const again = await terminationOf(probe, second.metadata!.uid!);
    expect(again.data).toMatchObject({ uuid, exitCode: 2 });
    const forUuid = terminationsSeen(probe).filter((t) => t.data.uuid === uuid);
    expect(new Set(forUuid.map((t) => t.id)).size).toBe(2);
    expect(new Set(forUuid.map((t) => t.data.podUid))).toEqual(
      new Set([first.metadata!.uid, second.metadata!.uid]),
    );
  });

  it('is ready while watching and counts what it published in /metrics', async () => {
    const url = await app.getUrl();
    const readyz = await fetch(`${url}/readyz`);
    expect(readyz.status).toBe(200);
    const body = (await readyz.json()) as {
      parts: Record<string, { ready: boolean; detail: string }>;
    };
    expect(body.parts['pod-watch']).toMatchObject({ ready: true });
    expect(body.parts['pod-watch'].detail).toMatch(/^watching from resourceVersion \d+/);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/kpm_watcher_leader\{[^}]*\} 1/);
    expect(metrics).toMatch(
      /kpm_watcher_terminations_published_total\{[^}]*reason="GracefulShutdown"[^}]*\} [1-9]/,
    );
    expect(metrics).toMatch(/kpm_watcher_pod_events_total\{[^}]*type="MODIFIED"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/kpm_watcher_publication_lag_seconds_count\{[^}]*\} [1-9]/);
  });
});
