import { eventually } from '@kpm/common';
import type { V1Pod } from '@kubernetes/client-node';
import { topicName } from '@kpm/contracts';
import { PodLab } from '../support/kpm-pods';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';
import { allTerminations, terminationsSeen } from '../support/terminations';
import { TopicProbe } from '../support/topic-probe';
import { ensureTopics, watcherEnv } from '../support/watcher-env';
import { WatcherProcess } from '../support/watcher-process';

// Longer than the global 120 s: pods run, end and are waited for on the real stack.
jest.setTimeout(300_000);

/**
 * The watcher dies mid-work — SIGKILL, no goodbye — while pods end. Their finalizers keep the
 * evidence, so the next watcher (the same one restarted, or the standby replica) records every
 * termination: each pod uid's record is on the topic, duplicates of one id allowed, gaps not.
 */
describe('watcher: killed while pods end, no termination is lost', () => {
  const prefix = uniqueTopicPrefix('wcrash');
  let lab: PodLab;
  let probe: TopicProbe;
  const processes: WatcherProcess[] = [];

  beforeAll(async () => {
    lab = await PodLab.open('wcrash');
    await ensureTopics(prefix);
    probe = await new TopicProbe(stackEnv().brokers, [topicName('terminations', prefix)]).start();
  }, 120_000);

  afterAll(async () => {
    for (const watcher of processes) await watcher.kill();
    await probe?.stop();
    await lab?.close();
  }, 120_000);

  function watcher(name: string): WatcherProcess {
    const process = new WatcherProcess(name, watcherEnv({ prefix, lab }));
    processes.push(process);
    return process;
  }

  /** `count` pods ending with `i % 4` after run times spread over `spreadMs`. */
  async function endingPods(tag: string, count: number, spreadMs: number): Promise<V1Pod[]> {
    const names = Array.from({ length: count }, (_, i) => `${tag}-${i}`);
    const pods: V1Pod[] = [];
    for (const [i, name] of names.entries()) {
      pods.push(
        await lab.create(name, {
          sim: {
            'sim.kpm.daq/exit-code': String(i % 4),
            'sim.kpm.daq/run-ms': String(500 + Math.round((i * spreadMs) / count)),
          },
        }),
      );
    }
    return pods;
  }

  /** Waits until `count` of these pods have a termination on the topic. */
  async function recorded(pods: V1Pod[], count: number, timeoutMs = 120_000): Promise<void> {
    const uids = new Set(pods.map((p) => p.metadata!.uid!));
    const ids = () =>
      new Set(
        terminationsSeen(probe)
          .filter((t) => uids.has(t.data.podUid))
          .map((t) => t.id),
      );
    await eventually(() => ids().size >= count, { what: `${count} terminations`, timeoutMs });
  }

  /** Every pod has its termination with the right exit code; no finalizer is left behind. */
  async function everyOneRecorded(pods: V1Pod[]): Promise<{ records: number; distinct: number }> {
    const seen = await allTerminations(
      probe,
      pods.map((p) => p.metadata!.uid!),
      180_000,
    );
    let records = 0;
    for (const [i, pod] of pods.entries()) {
      const all = seen.get(pod.metadata!.uid!)!;
      records += all.length;
      for (const one of all) expect(one.data.exitCode).toBe(i % 4);
    }
    await eventually(
      async () => {
        const list = await lab.core.listNamespacedPod({ namespace: lab.namespace });
        const held = list.items.filter(
          (p) => lab.holdsFinalizer(p) && pods.some((q) => q.metadata!.uid === p.metadata!.uid),
        );
        expect(held.map((p) => p.metadata!.name)).toEqual([]);
      },
      { what: 'no finalizer left', timeoutMs: 120_000, everyMs: 250 },
    );
    return { records, distinct: seen.size };
  }

  it('records all 200 terminations when the watcher is SIGKILLed while they end and started again', async () => {
    const first = await watcher('watcher-a').start();
    await first.leading();
    const pods = await endingPods('crash', 200, 8_000);
    await recorded(pods, 20);
    await first.kill('SIGKILL');
    const killedAt = new Set(terminationsSeen(probe).map((t) => t.id)).size;
    const again = await watcher('watcher-a').start();
    await again.leading();
    const { records, distinct } = await everyOneRecorded(pods);
    expect(distinct).toBe(200);
    expect(killedAt).toBeLessThan(200);
    console.log(
      `SIGKILL after ${killedAt} of 200 terminations; ${records} records for 200 pods after restart`,
    );
    await again.kill('SIGTERM');
  });

  it('records every termination when the leader of two replicas is killed and the standby takes over', async () => {
    const a = await watcher('replica-a').start();
    const b = await watcher('replica-b').start();
    const leaders = async () => [
      (await a.isLeader()) ? a : undefined,
      (await b.isLeader()) ? b : undefined,
    ];
    const leader = await eventually(
      async () => {
        const [leaderA, leaderB] = await leaders();
        return !leaderA !== !leaderB && (leaderA ?? leaderB)!;
      },
      { what: 'exactly one leader', timeoutMs: 60_000, everyMs: 200 },
    );
    const standby = leader === a ? b : a;
    await leader.leading();
    expect(await standby.isLeader()).toBe(false);

    const pods = await endingPods('failover', 100, 6_000);
    await recorded(pods, 10);
    await leader.kill('SIGKILL');
    await standby.leading();
    const { distinct } = await everyOneRecorded(pods);
    expect(distinct).toBe(100);
  });
});
