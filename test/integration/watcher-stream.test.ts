import { eventually } from '@kpm/common';
import type { INestApplication } from '@nestjs/common';
import type { V1Pod } from '@kubernetes/client-node';
import { topicName } from '@kpm/contracts';
import { runService } from '@kpm/service-kit';
import { WatcherModule } from '../../apps/watcher/src/watcher.module';
import { ApiServerReplica } from '../support/apiserver-replica';
import { compactEtcd } from '../support/etcd-compaction';
import { PodLab } from '../support/kpm-pods';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';
import { TcpProxy } from '../support/tcp-proxy';
import { allTerminations, terminationOf } from '../support/terminations';
import { TopicProbe } from '../support/topic-probe';
import { watcherSettings } from '../support/watcher-env';

// Longer than the global 120 s: pods run, end and are waited for on the real stack.
jest.setTimeout(180_000);
/**
 * The watch stream breaks the ways networks and control planes break it — connections cut, a
 * stream that goes silent, history compacted away while the watcher was disconnected — and no
 * termination is lost. The watcher reaches the API server through a TCP proxy the test controls.
 */
describe('watcher: the watch stream breaks, no termination is lost', () => {
  const prefix = uniqueTopicPrefix('wstream');
  let lab: PodLab;
  let proxy: TcpProxy;
  let app: INestApplication;
  let url: string;
  let probe: TopicProbe;
  let replica: ApiServerReplica | undefined;

  beforeAll(async () => {
    lab = await PodLab.open('wstream');
    const server = new URL(lab.kubeconfig.getCurrentCluster()!.server);
    proxy = await new TcpProxy({ host: server.hostname, port: Number(server.port) }).start();
    // A Lease that outlasts the cuts: the stream must recover within one leadership term.
    const settings = watcherSettings({
      prefix,
      lab,
      server: proxy.url,
      watcher: { leaseDurationSeconds: 120, leaseRenewDeadlineSeconds: 90 },
    });
    app = await runService(WatcherModule.register(settings), settings);
    url = await app.getUrl();
    probe = await new TopicProbe(stackEnv().brokers, [topicName('terminations', prefix)]).start();
    await readyz(true);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await probe?.stop();
    await proxy?.stop();
    await replica?.stop();
    await lab?.close();
  }, 90_000);

  async function readyz(expected: boolean, timeoutMs = 30_000): Promise<void> {
    await eventually(
      async () => expect((await fetch(`${url}/readyz`)).status === 200).toBe(expected),
      { what: `/readyz ready=${expected}`, timeoutMs },
    );
  }

  async function metric(pattern: RegExp): Promise<number> {
    const text = await (await fetch(`${url}/metrics`)).text();
    return text
      .split('\n')
      .filter((line) => pattern.test(line))
      .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
  }

  /** Pods that end with `i % 5` after staggered run times. */
  async function endingPods(
    tag: string,
    count: number,
    firstMs: number,
    stepMs: number,
  ): Promise<V1Pod[]> {
    const names = Array.from({ length: count }, (_, i) => `${tag}-${i}`);
    return Promise.all(
      names.map((name, i) =>
        lab.create(name, {
          sim: {
            'sim.kpm.daq/exit-code': String(i % 5),
            'sim.kpm.daq/run-ms': String(firstMs + i * stepMs),
          },
        }),
      ),
    );
  }

  /** Polls the API server directly (not through the proxy) until every named pod has ended. */
  async function ended(pods: V1Pod[], timeoutMs = 60_000): Promise<void> {
    const names = new Set(pods.map((p) => p.metadata!.name!));
    await eventually(
      async () => {
        const list = await lab.core.listNamespacedPod({ namespace: lab.namespace });
        const running = list.items.filter(
          (p) =>
            names.has(p.metadata!.name!) &&
            !['Succeeded', 'Failed'].includes(p.status?.phase ?? ''),
        );
        expect(running.map((p) => p.metadata!.name)).toEqual([]);
      },
      { what: 'every pod ended', timeoutMs, everyMs: 250 },
    );
  }

  /** Every termination arrived, each with the exit code its pod was given, and no finalizer is left. */
  async function allRecorded(pods: V1Pod[]): Promise<void> {
    const seen = await allTerminations(
      probe,
      pods.map((p) => p.metadata!.uid!),
      90_000,
    );
    for (const [i, pod] of pods.entries()) {
      expect(seen.get(pod.metadata!.uid!)![0].data.exitCode).toBe(i % 5);
    }
    for (const pod of pods)
      await lab.waitForPod(pod.metadata!.name!, (p) => !lab.holdsFinalizer(p), 60_000);
  }

  it('resumes after the connection is cut mid-way, unready while cut', async () => {
    const restartsBefore = await metric(/^kpm_watcher_watch_restarts_total/);
    const pods = await endingPods('cut', 40, 1_000, 100);
    await terminationOf(probe, pods[0].metadata!.uid!);
    proxy.cut();
    await readyz(false);
    await ended(pods);
    proxy.restore();
    await allRecorded(pods);
    await readyz(true);
    expect(await metric(/^kpm_watcher_watch_restarts_total/)).toBeGreaterThan(restartsBefore);
  });

  it('restarts a stream that went silent (inactivity watchdog)', async () => {
    const before = await metric(/^kpm_watcher_watch_restarts_total\{[^}]*why="inactivity"/);
    proxy.stall();
    const pods = await endingPods('silent', 10, 200, 50);
    // The stalled connection delivers nothing; only a new stream can bring these.
    await allRecorded(pods);
    expect(
      await metric(/^kpm_watcher_watch_restarts_total\{[^}]*why="inactivity"/),
    ).toBeGreaterThan(before);
  });

  it('re-lists after a 410 once etcd compacted the history it missed, and reports a pod that vanished meanwhile', async () => {
    // Watches served from etcd (no watch cache) meet its compaction, as after an API server restart.
    replica = await new ApiServerReplica(['--watch-cache=false']).start();
    proxy.cut();
    proxy.restore(replica.target);
    await readyz(true);

    const vanisher = await lab.create('vanisher');
    await lab.waitForPod('vanisher', (p) => p?.status?.phase === 'Running');
    const pods = await endingPods('gone', 10, 1_500, 100);
    // Watch events arrive in order: once this one's termination is out, the watcher knew the rest.
    const sentinel = await lab.create('sentinel', { sim: { 'sim.kpm.daq/exit-code': '0' } });
    await terminationOf(probe, sentinel.metadata!.uid!);

    const expiredBefore = await metric(/^kpm_watcher_watch_restarts_total\{[^}]*why="expired"/);
    proxy.cut();
    await ended(pods);
    await lab.dropFinalizer('vanisher');
    await lab.delete('vanisher', 0);
    await lab.waitForPod('vanisher', (p) => p === undefined);
    await compactEtcd();
    proxy.restore();

    await allRecorded(pods);
    // Its end is recorded exactly once, as -1 PodDeleted. Normally the re-list finds it gone (by
    // reconcile); in one CI run on a loaded machine the watcher saw its DELETED event first (by
    // watch) — either way no termination is lost, which is what this asserts.
    const vanished = await terminationOf(probe, vanisher.metadata!.uid!);
    expect(vanished.data).toMatchObject({ exitCode: -1, reason: 'PodDeleted', phase: 'Running' });
    expect(['reconcile', 'watch']).toContain(vanished.data.detectedBy);
    expect(await metric(/^kpm_watcher_watch_restarts_total\{[^}]*why="expired"/)).toBeGreaterThan(
      expiredBefore,
    );
  });
});
