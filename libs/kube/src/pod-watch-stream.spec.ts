import { ApiException, type V1Pod, type V1PodList } from '@kubernetes/client-node';
import {
  PodWatchStream,
  type PodStreamHandler,
  type PodWatchStreamOptions,
  type SnapshotCause,
  type StreamEnd,
} from './pod-watch-stream';
import { eventually } from '@kpm/common';

const pod = (name: string, resourceVersion: string): V1Pod => ({
  metadata: { name, uid: name, resourceVersion },
});

interface WatchCall {
  query: Record<string, unknown>;
  event(type: string, object: unknown): void;
  done(error: unknown): void;
  aborted: boolean;
}

/** A Watch whose requests the test answers; every request is recorded. */
class FakeWatch {
  readonly calls: WatchCall[] = [];
  failNext?: unknown;

  watch(
    _path: string,
    query: Record<string, unknown>,
    callback: (type: string, object: unknown) => void,
    done: (error: unknown) => void,
  ): Promise<AbortController> {
    const controller = new AbortController();
    const call: WatchCall = {
      query,
      event: (type, object) => callback(type, object),
      done,
      get aborted() {
        return controller.signal.aborted;
      },
    };
    this.calls.push(call);
    if (this.failNext) {
      const error = this.failNext;
      this.failNext = undefined;
      done(error);
    }
    return Promise.resolve(controller);
  }
}

/** Pages of a list; `expireContinue` makes the next continued page fail with 410. */
class FakeCore {
  pages: V1PodList[] = [];
  readonly requests: Array<{ limit?: number; _continue?: string }> = [];
  expireContinue = false;
  failures = 0;

  listPodForAllNamespaces(request: { limit?: number; _continue?: string }): Promise<V1PodList> {
    this.requests.push({ limit: request.limit, _continue: request._continue });
    if (this.failures > 0) {
      this.failures--;
      return Promise.reject(
        new ApiException(403, 'Forbidden', '{"reason":"Forbidden","message":"no"}', {}),
      );
    }
    if (request._continue && this.expireContinue) {
      this.expireContinue = false;
      return Promise.reject(
        new ApiException(410, 'Expired', '{"reason":"Expired","message":"too old"}', {}),
      );
    }
    const index = request._continue ? Number(request._continue) : 0;
    const page = request.limit ? this.pages[index] : mergePages(this.pages);
    return Promise.resolve(page);
  }
}

function mergePages(pages: V1PodList[]): V1PodList {
  return {
    items: pages.flatMap((page) => page.items),
    metadata: { resourceVersion: pages[pages.length - 1].metadata?.resourceVersion },
  };
}

const list = (resourceVersion: string, pods: V1Pod[], next?: string): V1PodList => ({
  items: pods,
  metadata: { resourceVersion, _continue: next },
});

class Recorder implements PodStreamHandler {
  readonly log: string[] = [];
  readonly snapshots: Array<{ names: string[]; cause: SnapshotCause }> = [];
  readonly ready: boolean[] = [];
  snapshot(pods: V1Pod[], cause: SnapshotCause): void {
    this.snapshots.push({ names: pods.map((p) => p.metadata!.name!), cause });
    this.log.push(`snapshot:${cause}`);
  }
  event(type: string, p: V1Pod): void {
    this.log.push(`${type}:${p.metadata!.name}`);
  }
  established(ready: boolean): void {
    this.ready.push(ready);
  }
  restarted(why: StreamEnd): void {
    this.log.push(`restart:${why}`);
  }
}

const OPTIONS: PodWatchStreamOptions = {
  labelSelector: 'creator.drunc.daq=kpm',
  pageSize: 2,
  inactivityMs: 60_000,
  watchTimeoutSeconds: 300,
  reconcileEveryMs: 0,
  backoff: { initialMs: 1, maxMs: 2 },
};

function start(core: FakeCore, watch: FakeWatch, options: Partial<PodWatchStreamOptions> = {}) {
  const recorder = new Recorder();
  const stop = new AbortController();
  const stream = new PodWatchStream(core, watch, {
    ...OPTIONS,
    ...options,
  });
  const running = stream.run(recorder, stop.signal);
  return {
    recorder,
    stop: async () => {
      stop.abort();
      await running;
    },
  };
}

describe('PodWatchStream', () => {
  it('lists page by page, then watches from the list resourceVersion with bookmarks', async () => {
    const core = new FakeCore();
    core.pages = [
      list('100', [pod('a', '90'), pod('b', '91')], '1'),
      list('100', [pod('c', '95')]),
    ];
    const watch = new FakeWatch();
    const { recorder, stop } = start(core, watch);
    await eventually(() => watch.calls.length === 1, { everyMs: 1 });
    expect(core.requests).toEqual([
      { limit: 2, _continue: undefined },
      { limit: 2, _continue: '1' },
    ]);
    expect(recorder.snapshots).toEqual([{ names: ['a', 'b', 'c'], cause: 'start' }]);
    expect(watch.calls[0].query).toMatchObject({
      labelSelector: 'creator.drunc.daq=kpm',
      resourceVersion: '100',
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
    });
    await eventually(() => recorder.ready.includes(true), { everyMs: 1 });
    await stop();
  });

  it('forwards events and resumes from the last resourceVersion, bookmarks included', async () => {
    const core = new FakeCore();
    core.pages = [list('100', [])];
    const watch = new FakeWatch();
    const { recorder, stop } = start(core, watch);
    await eventually(() => watch.calls.length === 1, { everyMs: 1 });
    watch.calls[0].event('ADDED', pod('a', '101'));
    watch.calls[0].event('MODIFIED', pod('a', '102'));
    watch.calls[0].event('BOOKMARK', { metadata: { resourceVersion: '150' } });
    watch.calls[0].done(null); // the server ended the request (timeoutSeconds)
    await eventually(() => watch.calls.length === 2, { everyMs: 1 });
    expect(watch.calls[1].query.resourceVersion).toBe('150');
    watch.calls[1].event('DELETED', pod('a', '151'));
    watch.calls[1].done(new Error('socket hang up'));
    await eventually(() => watch.calls.length === 3, { everyMs: 1 });
    expect(watch.calls[2].query.resourceVersion).toBe('151');
    expect(recorder.log).toEqual([
      'snapshot:start',
      'ADDED:a',
      'MODIFIED:a',
      'restart:closed',
      'DELETED:a',
      'restart:error',
    ]);
    expect(core.requests).toHaveLength(1);
    await stop();
  });

  it('re-lists after a 410 ERROR event and after an HTTP 410', async () => {
    const core = new FakeCore();
    core.pages = [list('100', [pod('a', '90')])];
    const watch = new FakeWatch();
    const { recorder, stop } = start(core, watch);
    await eventually(() => watch.calls.length === 1, { everyMs: 1 });
    core.pages = [list('300', [pod('b', '290')])];
    watch.calls[0].event('ERROR', {
      kind: 'Status',
      code: 410,
      reason: 'Expired',
      message: 'too old resource version',
    });
    await eventually(() => watch.calls.length === 2, { everyMs: 1 });
    expect(watch.calls[0].aborted).toBe(true);
    expect(watch.calls[1].query.resourceVersion).toBe('300');
    core.pages = [list('400', [])];
    watch.calls[1].done(Object.assign(new Error('Gone'), { statusCode: 410 }));
    await eventually(() => watch.calls.length === 3, { everyMs: 1 });
    expect(watch.calls[2].query.resourceVersion).toBe('400');
    expect(recorder.snapshots.map((s) => s.cause)).toEqual(['start', 'expired', 'expired']);
    expect(recorder.log).toContain('restart:expired');
    await stop();
  });

  it('restarts a silent stream from the same resourceVersion (inactivity watchdog)', async () => {
    const core = new FakeCore();
    core.pages = [list('100', [])];
    const watch = new FakeWatch();
    const { recorder, stop } = start(core, watch, { inactivityMs: 100 });
    await eventually(() => watch.calls.length === 1, { everyMs: 1 });
    watch.calls[0].event('MODIFIED', pod('a', '120'));
    await eventually(() => watch.calls.length === 2, { everyMs: 1 });
    expect(watch.calls[0].aborted).toBe(true);
    expect(watch.calls[1].query.resourceVersion).toBe('120');
    expect(recorder.log).toContain('restart:inactivity');
    expect(core.requests).toHaveLength(1);
    await stop();
  });

  it('lists again without pages when a continue token expired (etcd compaction)', async () => {
    const core = new FakeCore();
    core.pages = [
      list('100', [pod('a', '90'), pod('b', '91')], '1'),
      list('100', [pod('c', '95')]),
    ];
    core.expireContinue = true;
    const watch = new FakeWatch();
    const { recorder, stop } = start(core, watch);
    await eventually(() => watch.calls.length === 1, { everyMs: 1 });
    expect(core.requests).toEqual([
      { limit: 2, _continue: undefined },
      { limit: 2, _continue: '1' },
      { limit: undefined, _continue: undefined },
    ]);
    expect(recorder.snapshots).toEqual([{ names: ['a', 'b', 'c'], cause: 'start' }]);
    await stop();
  });

  it('backs off and retries a failing list, not ready meanwhile', async () => {
    const core = new FakeCore();
    core.pages = [list('100', [])];
    core.failures = 3;
    const watch = new FakeWatch();
    const { recorder, stop } = start(core, watch);
    await eventually(() => watch.calls.length === 1, { everyMs: 1 });
    expect(core.requests).toHaveLength(4);
    expect(recorder.ready.slice(0, 3)).toEqual([false, false, false]);
    await eventually(() => recorder.ready[recorder.ready.length - 1], { everyMs: 1 });
    await stop();
  });

  it('backs off after a watch request that fails at once', async () => {
    const core = new FakeCore();
    core.pages = [list('100', [])];
    const watch = new FakeWatch();
    watch.failNext = Object.assign(new Error('Internal Server Error'), { statusCode: 500 });
    const { recorder, stop } = start(core, watch);
    await eventually(() => watch.calls.length === 2, { everyMs: 1 });
    expect(recorder.log).toContain('restart:error');
    expect(watch.calls[1].query.resourceVersion).toBe('100');
    await stop();
  });

  it('re-lists periodically (reconcile)', async () => {
    const core = new FakeCore();
    core.pages = [list('100', [pod('a', '90')])];
    const watch = new FakeWatch();
    const { recorder, stop } = start(core, watch, { reconcileEveryMs: 50 });
    await eventually(() => recorder.snapshots.length >= 3, { everyMs: 1 });
    expect(recorder.snapshots.slice(1).every((s) => s.cause === 'reconcile')).toBe(true);
    expect(watch.calls.slice(0, -1).every((call) => call.aborted)).toBe(true);
    await stop();
  });

  it('stops promptly and aborts the open request', async () => {
    const core = new FakeCore();
    core.pages = [list('100', [])];
    const watch = new FakeWatch();
    const { stop } = start(core, watch);
    await eventually(() => watch.calls.length === 1, { everyMs: 1 });
    await stop();
    expect(watch.calls[0].aborted).toBe(true);
    expect(watch.calls).toHaveLength(1);
  });
});
