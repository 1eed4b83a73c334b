import type { V1Pod } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { VirtualClock, type LogEvent } from '@kpm/common';
import { loadSettings } from '@kpm/config';
import {
  KpmLabels,
  type LeadershipListener,
  type LeadershipTerm,
  type NodeLoss,
  type PodEventType,
  type PodStreamHandler,
} from '@kpm/kube';
import type { Termination } from './termination';
import type { ExpectedPod } from './termination-tracker';
import { Watcher, WATCH_PART, type WatcherPorts } from './watcher';
import { WatcherMetrics } from './watcher-metrics';

const labels = new KpmLabels('drunc.daq');
const settings = loadSettings('watcher', {}).watcher;

function pod(uid: string, exitCode?: number, deleting = false): V1Pod {
  return {
    metadata: {
      uid,
      name: uid,
      namespace: 'run-7',
      labels: { [labels.creator]: 'kpm', [labels.uuid]: `u-${uid}`, [labels.session]: 'run-7' },
      finalizers: [labels.terminationFinalizer],
      ...(deleting ? { deletionTimestamp: new Date(0) } : {}),
    },
    spec: { containers: [{ name: uid }], nodeName: 'kpm-real-1' },
    status: {
      phase: exitCode === undefined ? 'Running' : exitCode === 0 ? 'Succeeded' : 'Failed',
      containerStatuses: [
        {
          name: uid,
          image: 'i',
          imageID: '',
          ready: exitCode === undefined,
          restartCount: 0,
          state: exitCode === undefined ? { running: {} } : { terminated: { exitCode } },
        },
      ],
    },
  };
}

/**
 * The Lease, as the test grants and takes it: `grant()` starts a term of this replica (continued
 * or not), `lose()` ends it, `other(name)` says another replica leads.
 */
class FakeLeadership {
  private lead?: (term: AbortSignal, context: LeadershipTerm) => Promise<void>;
  private listener?: LeadershipListener;
  private term?: { stop: AbortController; running: Promise<void> };

  run(
    lead: (term: AbortSignal, context: LeadershipTerm) => Promise<void>,
    signal: AbortSignal,
    listener: LeadershipListener = {},
  ): Promise<void> {
    this.lead = lead;
    this.listener = listener;
    return new Promise((resolve) =>
      signal.addEventListener('abort', () => void this.lose().then(resolve), { once: true }),
    );
  }

  grant(continued: boolean): void {
    const stop = new AbortController();
    this.listener?.leaderChanged?.('this', true);
    this.term = { stop, running: this.lead!(stop.signal, { continued }) };
  }

  async lose(): Promise<void> {
    this.term?.stop.abort();
    await this.term?.running;
    this.term = undefined;
  }

  other(holder: string): void {
    this.listener?.leaderChanged?.(holder, false);
  }
}

/** The API server's pods as the test lists them, and the events it sends on the watch. */
class FakePods {
  listed: V1Pod[] = [];
  private handler?: PodStreamHandler;

  stream(): { run(handler: PodStreamHandler, signal: AbortSignal): Promise<void> } {
    return {
      run: (handler, signal) => {
        this.handler = handler;
        handler.snapshot(this.listed, 'start');
        handler.established(true, 'watching');
        return new Promise((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
      },
    };
  }

  event(type: PodEventType, p: V1Pod): void {
    this.handler!.event(type, p);
  }
}

function setUp(options: { table?: ExpectedPod[] | Error; publishFailures?: number } = {}) {
  const broker = { down: false };
  const clock = new VirtualClock(0);
  const leadership = new FakeLeadership();
  const pods = new FakePods();
  /** The nodes the API server shows lost; `undefined`: the node list fails. */
  const nodes: { lost?: Map<string, NodeLoss> } = { lost: new Map() };
  const log: string[] = [];
  const readiness: string[] = [];
  let failures = options.publishFailures ?? 0;
  const ports: WatcherPorts = {
    leadership,
    podStream: () => pods.stream(),
    releaseFinalizer: (p) => {
      log.push(`release ${p.metadata!.uid} +${clock.now()}ms`);
      return Promise.resolve(true);
    },
    publish: (batch: readonly Termination[]) => {
      if (broker.down || failures-- > 0) return Promise.reject(new Error('broker down'));
      for (const t of batch)
        log.push(
          `publish ${t.identity.podUid} ${t.verdict.exitCode} ${t.verdict.reason} by ${t.detectedBy}`,
        );
      return Promise.resolve();
    },
    runningPods: () => {
      log.push('read the process table');
      return options.table instanceof Error
        ? Promise.reject(options.table)
        : Promise.resolve(options.table ?? []);
    },
    lostNodes: () =>
      nodes.lost ? Promise.resolve(nodes.lost) : Promise.reject(new Error('nodes: Forbidden')),
    clock,
  };
  const outside = {
    readiness: {
      set: (part: string, ready: boolean, detail: string) =>
        void readiness.push(`${part} ${ready} ${detail}`),
    },
    metrics: new WatcherMetrics(new Registry()),
    logger: {
      log: () => undefined,
      warn: (entry: LogEvent) => void log.push(`warn ${entry.event}: ${String(entry.error)}`),
    },
  };
  const watcher = new Watcher(ports, { ...settings, retryInitialMs: 100 }, labels, outside);
  const stop = new AbortController();
  const running = watcher.run(stop.signal);
  const settle = () => clock.sleep(1_000);
  return { clock, broker, leadership, pods, nodes, log, readiness, outside, stop, running, settle };
}

const expected = (uid: string): ExpectedPod => ({
  podUid: uid,
  namespace: 'run-7',
  podName: uid,
  uuid: `u-${uid}`,
  session: 'run-7',
  name: uid,
  user: 'alice',
});

describe('Watcher: leadership terms', () => {
  it('leads: publishes what the first list and the watch show ending, then releases each', async () => {
    const w = setUp();
    w.pods.listed = [pod('ended', 3), pod('running')];
    w.leadership.grant(false);
    await w.settle();
    w.pods.event('MODIFIED', pod('running', 0));
    await w.settle();
    expect(w.log).toEqual([
      'read the process table',
      'publish ended 3 Error by reconcile',
      'release ended +0ms',
      'publish running 0 GracefulShutdown by watch',
      'release running +1000ms',
    ]);
    expect(w.readiness).toEqual([
      `${WATCH_PART} false leading; listing pods`,
      `${WATCH_PART} true watching`,
    ]);
  });

  it('a fresh term (another replica led between) starts from the process table: a RUNNING pod missing from the list was deleted', async () => {
    const w = setUp({ table: [expected('vanished'), expected('listed')] });
    w.pods.listed = [pod('listed')];
    w.leadership.grant(false);
    await w.settle();
    expect(w.log).toEqual([
      'read the process table',
      'publish vanished -1 PodDeleted by reconcile',
    ]);
  });

  it.each<[string, boolean, string[]]>([
    [
      'a continued term keeps the memory: it publishes again what the last one left unacknowledged',
      true,
      ['publish a 2 Error by watch', 'release a +2000ms'],
    ],
    [
      'a fresh term forgets it: it reads the table and finds the ended pod again in its list',
      false,
      ['read the process table', 'publish a 2 Error by reconcile', 'release a +2000ms'],
    ],
  ])('%s', async (_, continued, second) => {
    const w = setUp();
    w.broker.down = true;
    w.leadership.grant(false);
    await w.settle();
    w.pods.event('MODIFIED', pod('a', 2));
    await w.settle();
    await w.leadership.lose();
    expect(w.log.filter((l) => l.startsWith('publish'))).toEqual([]);
    w.broker.down = false;
    w.pods.listed = [pod('a', 2)];
    w.log.length = 0;
    w.leadership.grant(continued);
    await w.settle();
    expect(w.log).toEqual(second);
  });

  it('goes on without the process table when it cannot be read', async () => {
    const w = setUp({ table: new Error('broker unreachable') });
    w.pods.listed = [pod('ended', 1)];
    w.leadership.grant(false);
    await w.settle();
    expect(w.log).toEqual([
      'read the process table',
      'warn process_table.read_failed: broker unreachable',
      'publish ended 1 Error by reconcile',
      'release ended +0ms',
    ]);
  });

  it('releases nothing before Kafka acknowledged, retrying the publication with backoff', async () => {
    const w = setUp({ publishFailures: 3 });
    w.leadership.grant(false);
    await w.settle();
    w.pods.event('MODIFIED', pod('a', 1));
    await w.clock.sleep(60_000);
    expect(w.log.filter((l) => !l.startsWith('warn'))).toEqual([
      'read the process table',
      'publish a 1 Error by watch',
      expect.stringMatching(/^release a \+\d+ms$/),
    ]);
    const released = Number(/\+(\d+)ms/.exec(w.log.at(-1)!)![1]);
    expect(released).toBeGreaterThan(1_000);
  });

  it('stands by, ready, while another replica leads; stops leading when the term is lost', async () => {
    const w = setUp();
    w.leadership.other('replica-2');
    expect(w.readiness).toEqual([`${WATCH_PART} true standby; leader: replica-2`]);
    w.leadership.grant(false);
    await w.settle();
    await w.leadership.lose();
    expect(w.readiness.at(-1)).toBe(`${WATCH_PART} true not leading`);
    expect((await w.outside.metrics.leader.get()).values[0].value).toBe(0);
    w.stop.abort();
    await w.running;
  });
});

describe('Watcher: a lost node', () => {
  const loss: NodeLoss = {
    node: 'kpm-real-1',
    reason: 'NodeStatusUnknown',
    message: 'Kubelet stopped posting node status.',
  };

  it('ends a pod being deleted there NodeLost at the next node check, and not before', async () => {
    const w = setUp();
    w.pods.listed = [pod('stranded')];
    w.leadership.grant(false);
    await w.settle();
    // A kill asked the deletion; the silent kubelet leaves its container "running".
    w.pods.event('MODIFIED', pod('stranded', undefined, true));
    await w.clock.sleep(10_000);
    expect(w.log).toEqual(['read the process table']);
    w.nodes.lost = new Map([[loss.node, loss]]);
    await w.clock.sleep(settings.nodeCheckSeconds * 1000);
    expect(w.log).toEqual([
      'read the process table',
      'publish stranded -1 NodeLost by watch',
      `release stranded +${11_000 + settings.nodeCheckSeconds * 1000 - 1000}ms`,
    ]);
  });

  it('goes on watching pods when the nodes cannot be listed, and says so', async () => {
    const w = setUp();
    w.nodes.lost = undefined;
    w.pods.listed = [pod('a')];
    w.leadership.grant(false);
    await w.settle();
    w.pods.event('MODIFIED', pod('a', 3));
    await w.settle();
    expect(w.log).toEqual([
      'read the process table',
      'warn nodes.check_failed: nodes: Forbidden',
      'publish a 3 Error by watch',
      'release a +1000ms',
    ]);
  });
});
