import type { V1Pod } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { DEFAULT_FATAL_WAITING_REASONS } from '@kpm/config';
import { KpmLabels, type PodStreamHandler } from '@kpm/kube';
import type { Termination } from './termination';
import { TerminationTracker } from './termination-tracker';
import { TerminationWatch } from './termination-watch';
import { WatcherMetrics } from './watcher-metrics';
import { eventually } from '@kpm/common';

const labels = new KpmLabels('drunc.daq');

function pod(uid: string, exitCode?: number, finalizers = [labels.terminationFinalizer]): V1Pod {
  return {
    metadata: {
      uid,
      name: uid,
      namespace: 'run-1',
      labels: { [labels.creator]: 'kpm', [labels.uuid]: uid, [labels.session]: 'run-1' },
      finalizers,
    },
    spec: { containers: [{ name: uid }] },
    status: {
      phase: exitCode === undefined ? 'Running' : exitCode === 0 ? 'Succeeded' : 'Failed',
      containerStatuses: [
        {
          name: uid,
          image: 'i',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: exitCode === undefined ? { running: {} } : { terminated: { exitCode } },
        },
      ],
    },
  };
}

/** A stream the test drives: it hands out the handler and ends when the term is aborted. */
class FakeStream {
  handler?: PodStreamHandler;
  run(handler: PodStreamHandler, signal: AbortSignal): Promise<void> {
    this.handler = handler;
    return new Promise((resolve) =>
      signal.addEventListener('abort', () => resolve(), { once: true }),
    );
  }
}

function setup(options: { publishFails?: () => boolean; releaseFails?: () => boolean } = {}) {
  const stream = new FakeStream();
  const published: string[] = [];
  const released: string[] = [];
  const order: string[] = [];
  const readiness: boolean[] = [];
  const tracker = new TerminationTracker(labels, new Set(DEFAULT_FATAL_WAITING_REASONS));
  const metrics = new WatcherMetrics(new Registry());
  const watch = new TerminationWatch({
    tracker,
    stream,
    lostNodes: () => Promise.resolve(new Map()),
    nodeCheckMs: 0,
    publish: (batch: readonly Termination[]) => {
      if (options.publishFails?.()) return Promise.reject(new Error('broker down'));
      published.push(...batch.map((t) => t.identity.podUid));
      order.push(...batch.map((t) => `published ${t.identity.podUid}`));
      return Promise.resolve();
    },
    releaseFinalizer: (p) => {
      order.push(`release ${p.metadata!.uid}`);
      if (options.releaseFails?.()) return Promise.reject(new Error('API server unreachable'));
      released.push(p.metadata!.uid!);
      return Promise.resolve(true);
    },
    batchSize: 100,
    finalizerConcurrency: 4,
    backoff: { initialMs: 1, maxMs: 5 },
    metrics,
    established: (ready) => readiness.push(ready),
    logger: { log: () => undefined, warn: () => undefined },
  });
  const stop = new AbortController();
  const running = watch.run(stop.signal);
  return { stream, published, released, order, readiness, tracker, metrics, stop, running };
}

describe('TerminationWatch', () => {
  it('publishes what the list and the stream show ending, then releases the finalizers', async () => {
    const t = setup();
    await eventually(() => t.stream.handler !== undefined, { everyMs: 1 });
    t.stream.handler!.snapshot([pod('listed-ended', 3), pod('running')], 'start');
    t.stream.handler!.established(true, 'watching');
    t.stream.handler!.event('MODIFIED', pod('running', 0));
    await eventually(() => t.released.length === 2, { everyMs: 1 });
    expect(t.published.sort()).toEqual(['listed-ended', 'running']);
    expect(t.released.sort()).toEqual(['listed-ended', 'running']);
    expect(t.readiness).toEqual([true]);
    const counted = await t.metrics.terminationsPublished.get();
    expect(counted.values.map((v) => [v.labels.detected_by, v.value]).sort()).toEqual([
      ['reconcile', 1],
      ['watch', 1],
    ]);
    t.stop.abort();
    await t.running;
  });

  it('releases nothing before Kafka acknowledged, and keeps retrying the publication', async () => {
    let failures = 3;
    const t = setup({ publishFails: () => failures-- > 0 });
    await eventually(() => t.stream.handler !== undefined, { everyMs: 1 });
    t.stream.handler!.event('MODIFIED', pod('a', 1));
    await eventually(() => t.released.length === 1, { everyMs: 1 });
    expect(t.order).toEqual(['published a', 'release a']);
    expect((await t.metrics.publishFailures.get()).values[0].value).toBe(3);
    t.stop.abort();
    await t.running;
  });

  it('retries a failed finalizer release with backoff, without waiting for another event', async () => {
    let failures = 2;
    const t = setup({ releaseFails: () => failures-- > 0 });
    await eventually(() => t.stream.handler !== undefined, { everyMs: 1 });
    t.stream.handler!.event('MODIFIED', pod('a', 0));
    await eventually(() => t.released.length === 1, { everyMs: 1 });
    expect(t.order).toEqual(['published a', 'release a', 'release a', 'release a']);
    t.stop.abort();
    await t.running;
  });

  it('re-publishes, in a continued term, what the previous term left unacknowledged', async () => {
    const first = setup({ publishFails: () => true });
    await eventually(() => first.stream.handler !== undefined, { everyMs: 1 });
    first.stream.handler!.event('MODIFIED', pod('a', 2));
    await eventually(() => first.tracker.counts().publishing === 1, { everyMs: 1 });
    first.stop.abort();
    await first.running;

    const stream = new FakeStream();
    const published: string[] = [];
    const stop = new AbortController();
    const running = new TerminationWatch({
      tracker: first.tracker,
      stream,
      lostNodes: () => Promise.resolve(new Map()),
      nodeCheckMs: 0,
      publish: (batch) => {
        published.push(...batch.map((t) => t.identity.podUid));
        return Promise.resolve();
      },
      releaseFinalizer: () => Promise.resolve(true),
      batchSize: 100,
      finalizerConcurrency: 4,
      backoff: { initialMs: 1, maxMs: 5 },
      metrics: new WatcherMetrics(new Registry()),
      established: () => undefined,
      logger: { log: () => undefined, warn: () => undefined },
    }).run(stop.signal);
    await eventually(() => published.length === 1, { everyMs: 1 });
    expect(published).toEqual(['a']);
    stop.abort();
    await running;
  });
});
