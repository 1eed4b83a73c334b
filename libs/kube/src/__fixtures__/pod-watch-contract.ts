/**
 * The pod watch's contract: one table of the API server's behaviours that PodWatchStream relies
 * on — list, then watch from the list's resourceVersion; resume from an event's; 410 Expired for
 * one too old; label selectors; paged lists — and the stream itself over them.
 * `pod-watch-contract.spec.ts` runs it on FakePodApi (unit run), and
 * `test/integration/pod-watch-contract.test.ts` on KubeCoreApi and KubeWatch against the local
 * stack's API server, pods on kwok's nodes (integration run). When the two disagree, the table
 * (the API server) is right and the fake is fixed.
 *
 * Every case labels its pods with a value of its own (`env.unique`) and selects by it, so runs
 * sharing one API server never see each other's pods. On the real server a node reports its pods'
 * status (MODIFIED events the fake never makes): a case asserts only on the changes it made,
 * in order. The expectations use jest's `expect`, called only while a case runs.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { eventually } from '@kpm/common';
import type { CoreApi } from '../http/kube-core-api';
import { PatchType } from '../http/kube-core-api';
import type { KubeWatch } from '../http/kube-watch';
import {
  PodWatchStream,
  type PodStreamHandler,
  type SnapshotCause,
  type StreamEnd,
} from '../pod-watch-stream';

/** What the table calls: the stream's two ports, and the writes that make the changes. */
export type PodApi = Pick<
  CoreApi,
  'listPodForAllNamespaces' | 'createNamespacedPod' | 'patchNamespacedPod' | 'deleteNamespacedPod'
> &
  Pick<KubeWatch, 'watch'>;

export interface PodWatchEnv {
  /** A name of this run's own (DNS-1123), so runs sharing one API server never meet. */
  unique(label: string): string;
  /** The namespace the cases' pods go in (it exists). */
  namespace: string;
  /** The pod, placed on a node (a kwok node on the real server). */
  place(pod: V1Pod): V1Pod;
  /** A resourceVersion older than any the server still serves watches from, once it forgot. */
  tooOldResourceVersion: string;
  /**
   * Makes the server forget its history before now, as it does on its own every few minutes
   * (etcd's compaction on the real server, `compact()` on the fake).
   */
  forgetHistory(): Promise<void>;
}

export interface PodWatchCase {
  name: string;
  /**
   * The case makes the server forget its history (`env.forgetHistory`). A server with a watch
   * cache serves watches from its window of recent changes, which may reach back to any
   * resourceVersion on a young cluster whatever etcd forgot; the real side runs these against an
   * API server without one, whose watches etcd serves.
   */
  forgets?: true;
  run(api: PodApi, env: PodWatchEnv): Promise<void>;
}

/** Long enough for the real API server; the fake answers at once. */
const WAIT_MS = 30_000;
const CASE_LABEL = 'pod-watch.contract.test.daq/case';
const STEP = 'pod-watch.contract.test.daq/step';

interface Seen {
  type: string;
  name?: string;
  resourceVersion?: string;
  object: Record<string, unknown> & V1Pod;
}

/** One watch request, its events recorded; `until` waits on them with a deadline. */
async function openWatch(api: PodApi, labelSelector: string, resourceVersion: string) {
  const events: Seen[] = [];
  let ended: { error: unknown } | undefined;
  const controller = await api.watch(
    '/api/v1/pods',
    { labelSelector, resourceVersion, timeoutSeconds: 120 },
    (type, object) => {
      const o = object as Seen['object'];
      events.push({
        type,
        name: o?.metadata?.name,
        resourceVersion: o?.metadata?.resourceVersion,
        object: o,
      });
    },
    (error) => (ended = { error }),
  );
  return {
    events,
    ended: () => ended,
    stop: () => controller.abort(),
    until: (what: string, check: (events: Seen[]) => boolean) =>
      eventually(() => check(events), { what, timeoutMs: WAIT_MS, everyMs: 20 }),
  };
}

/** A pod of the case, selected by its case label. */
function casePod(env: PodWatchEnv, name: string, selected: string): V1Pod {
  return env.place({
    metadata: { name, namespace: env.namespace, labels: { [CASE_LABEL]: selected } },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'main', image: 'kpm.invalid/contract:1.0' }],
    },
  });
}

const create = (api: PodApi, pod: V1Pod) =>
  api.createNamespacedPod({ namespace: pod.metadata!.namespace!, body: pod });
const patch = (api: PodApi, env: PodWatchEnv, name: string, metadata: unknown) =>
  api.patchNamespacedPod({ namespace: env.namespace, name, body: { metadata } }, PatchType.merge);
const remove = (api: PodApi, env: PodWatchEnv, name: string) =>
  api.deleteNamespacedPod({ namespace: env.namespace, name, gracePeriodSeconds: 0 });

const selecting = (value: string) => `${CASE_LABEL}=${value}`;
const deleted = (name: string) => (events: Seen[]) =>
  events.some((e) => e.type === 'DELETED' && e.name === name);
const stepOf = (e: Seen) => e.object.metadata?.annotations?.[STEP];
const versions = (events: Seen[]) => events.map((e) => BigInt(e.resourceVersion ?? '0'));

function increasing(values: bigint[]): boolean {
  return values.every((value, i) => i === 0 || value > values[i - 1]);
}

/**
 * A pod's own changes in a watch: made (ADDED), changed to `step` (MODIFIED), deleted (DELETED),
 * in that order, at increasing resourceVersions; the node's status reports may come between.
 */
function expectLifecycle(events: Seen[], name: string, step: string): void {
  const own = events.filter((e) => e.name === name);
  expect(own[0]?.type).toBe('ADDED');
  expect(own[own.length - 1]?.type).toBe('DELETED');
  expect(own.slice(1, -1).every((e) => e.type === 'MODIFIED')).toBe(true);
  const changed = own.findIndex((e) => e.type === 'MODIFIED' && stepOf(e) === step);
  expect(changed).toBeGreaterThan(0);
  expect(increasing(versions(own))).toBe(true);
}

const watchCases: PodWatchCase[] = [
  {
    name: "list, then watch from the list's resourceVersion: a pod made after it is ADDED, changed MODIFIED, deleted DELETED, in order",
    run: async (api, env) => {
      const selected = env.unique('lifecycle');
      const before = await create(api, casePod(env, env.unique('before'), selected));
      const list = await api.listPodForAllNamespaces({ labelSelector: selecting(selected) });
      expect(list.items.map((p) => p.metadata?.name)).toEqual([before.metadata?.name]);
      const listedAt = list.metadata!.resourceVersion!;
      expect(BigInt(listedAt)).toBeGreaterThanOrEqual(BigInt(before.metadata!.resourceVersion!));
      const watch = await openWatch(api, selecting(selected), listedAt);
      const name = env.unique('pod');
      await create(api, casePod(env, name, selected));
      await patch(api, env, name, { annotations: { [STEP]: 'changed' } });
      await remove(api, env, name);
      await watch.until('the pod DELETED', deleted(name));
      watch.stop();
      expectLifecycle(watch.events, name, 'changed');
      // Nothing from before the list: the pod listed is not ADDED again.
      expect(watch.events.some((e) => e.type === 'ADDED' && e.name === before.metadata?.name)).toBe(
        false,
      );
      expect(versions(watch.events).every((v) => v > BigInt(listedAt))).toBe(true);
    },
  },
  {
    name: "a watch resumed from an event's resourceVersion sees what came after it, and not that event again",
    run: async (api, env) => {
      const selected = env.unique('resume');
      const list = await api.listPodForAllNamespaces({ labelSelector: selecting(selected) });
      const first = await openWatch(api, selecting(selected), list.metadata!.resourceVersion!);
      const name = env.unique('pod');
      await create(api, casePod(env, name, selected));
      await patch(api, env, name, { annotations: { [STEP]: 'one' } });
      await patch(api, env, name, { annotations: { [STEP]: 'two' } });
      await remove(api, env, name);
      await first.until('the pod DELETED', deleted(name));
      first.stop();
      const added = first.events.findIndex((e) => e.type === 'ADDED' && e.name === name);
      const one = first.events.findIndex((e) => stepOf(e) === 'one');
      expect(added).toBeGreaterThanOrEqual(0);
      expect(one).toBeGreaterThan(added);
      const brief = (e: Seen) => `${e.type} ${e.name} ${e.resourceVersion}`;
      for (const from of [added, one]) {
        const resumed = await openWatch(
          api,
          selecting(selected),
          first.events[from].resourceVersion!,
        );
        await resumed.until('the pod DELETED again', deleted(name));
        resumed.stop();
        expect(resumed.events.map(brief)).toEqual(first.events.slice(from + 1).map(brief));
      }
    },
  },
  {
    name: 'a watch from a resourceVersion too old is answered by a 200 stream whose one event is an ERROR Status 410 Expired, then its end',
    forgets: true,
    run: async (api, env) => {
      await env.forgetHistory();
      const watch = await openWatch(
        api,
        selecting(env.unique('expired')),
        env.tooOldResourceVersion,
      );
      await watch.until('the request ended', () => watch.ended() !== undefined);
      // The end is not an HTTP error: the status came as an event of a successful response.
      expect(watch.ended()).toEqual({ error: null });
      expect(watch.events).toHaveLength(1);
      expect(watch.events[0].type).toBe('ERROR');
      expect(watch.events[0].object).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        code: 410,
        reason: 'Expired',
      });
      // The watch cache says "too old resource version: 1 (45573)", etcd's compaction "The
      // resourceVersion for the provided watch is too old.": which one answers depends on timing.
      expect(watch.events[0].object.message).toMatch(/too old/i);
    },
  },
  {
    name: 'label selectors: a list and a watch see only the pods selected; a pod coming into the selector is ADDED, one leaving it DELETED',
    run: async (api, env) => {
      const [selected, other] = [env.unique('in'), env.unique('out')];
      const [inside, outside] = [env.unique('inside'), env.unique('outside')];
      await create(api, casePod(env, inside, selected));
      await create(api, casePod(env, outside, other));
      const list = await api.listPodForAllNamespaces({ labelSelector: selecting(selected) });
      expect(list.items.map((p) => p.metadata?.name)).toEqual([inside]);
      const watch = await openWatch(api, selecting(selected), list.metadata!.resourceVersion!);
      const coming = await patch(api, env, outside, { labels: { [CASE_LABEL]: selected } });
      const leaving = await patch(api, env, inside, { labels: { [CASE_LABEL]: other } });
      await remove(api, env, inside); // no longer selected: not seen
      await remove(api, env, outside);
      await watch.until('the pod come in DELETED', deleted(outside));
      watch.stop();
      const of = (name: string) => watch.events.filter((e) => e.name === name);
      const came = of(outside);
      expect(came[0]?.type).toBe('ADDED');
      expect(came[0]?.object.metadata?.labels?.[CASE_LABEL]).toBe(selected);
      expect(came[0]?.resourceVersion).toBe(coming.metadata?.resourceVersion);
      expect(came[came.length - 1]?.type).toBe('DELETED');
      const left = of(inside);
      // Leaving: the last state it was selected in, at the resourceVersion of the change.
      expect(left[left.length - 1]?.type).toBe('DELETED');
      expect(left[left.length - 1]?.object.metadata?.labels?.[CASE_LABEL]).toBe(selected);
      expect(left[left.length - 1]?.resourceVersion).toBe(leaving.metadata?.resourceVersion);
      expect(left.slice(0, -1).every((e) => e.type === 'MODIFIED')).toBe(true);
      expect(watch.events.every((e) => e.name === inside || e.name === outside)).toBe(true);
    },
  },
  {
    name: "a list in pages of `limit` gives every pod once, each page at the first page's resourceVersion, though pods change between pages",
    run: async (api, env) => {
      const selected = env.unique('paged');
      const names = [env.unique('p'), env.unique('p'), env.unique('p')];
      for (const name of names) await create(api, casePod(env, name, selected));
      const pages = [
        await api.listPodForAllNamespaces({ labelSelector: selecting(selected), limit: 2 }),
      ];
      const late = env.unique('late');
      await create(api, casePod(env, late, selected));
      while (pages[pages.length - 1].metadata?._continue) {
        const token = pages[pages.length - 1].metadata!._continue;
        pages.push(
          await api.listPodForAllNamespaces({
            labelSelector: selecting(selected),
            limit: 2,
            _continue: token,
          }),
        );
      }
      expect(pages.length).toBeGreaterThan(1);
      expect(pages.every((p) => p.items.length <= 2)).toBe(true);
      const listed = pages.flatMap((p) => p.items.map((pod) => pod.metadata!.name!));
      expect([...listed].sort()).toEqual([...names].sort());
      const at = pages.map((p) => p.metadata?.resourceVersion);
      expect(new Set(at).size).toBe(1);
      const now = await api.listPodForAllNamespaces({ labelSelector: selecting(selected) });
      expect(now.items.map((p) => p.metadata?.name)).toContain(late);
    },
  },
  {
    name: 'a full page has a continue token while any pod follows it, selected or not: the page after may be empty',
    run: async (api, env) => {
      const selected = env.unique('full-page');
      const [first, next] = [env.unique('a'), env.unique('b')];
      await create(api, casePod(env, first, selected));
      await create(api, casePod(env, next, env.unique('not-selected')));
      const query = { labelSelector: selecting(selected), limit: 1 };
      const page = await api.listPodForAllNamespaces(query);
      expect(page.items.map((p) => p.metadata?.name)).toEqual([first]);
      expect(page.metadata?._continue).toBeTruthy();
      const after = await api.listPodForAllNamespaces({
        ...query,
        _continue: page.metadata!._continue,
      });
      expect(after.items).toEqual([]);
      expect(after.metadata?._continue).toBeFalsy();
      expect(after.metadata?.resourceVersion).toBe(page.metadata?.resourceVersion);
      const whole = await api.listPodForAllNamespaces({ ...query, limit: 2 });
      expect(whole.items.map((p) => p.metadata?.name)).toEqual([first]);
    },
  },
];

/** What a PodWatchStream told its handler, in order. */
class Recorder implements PodStreamHandler {
  readonly log: string[] = [];
  readonly snapshots: Array<{ names: string[]; cause: SnapshotCause }> = [];
  /** The log without the node's status reports (MODIFIED) and the readiness changes. */
  steps(): string[] {
    return this.log.filter((line) => !/^(MODIFIED|not-ready):/.test(line));
  }
  snapshot(pods: V1Pod[], cause: SnapshotCause): void {
    this.snapshots.push({ names: pods.map((p) => p.metadata!.name!).sort(), cause });
    this.log.push(`snapshot:${cause}`);
  }
  event(type: string, pod: V1Pod): void {
    this.log.push(`${type}:${pod.metadata!.name}`);
  }
  established(ready: boolean, detail: string): void {
    if (!ready) this.log.push(`not-ready:${detail}`);
  }
  restarted(why: StreamEnd): void {
    this.log.push(`restart:${why}`);
  }
}

/** A PodWatchStream over the api, selecting by the case's label, until `stop`. */
function runStream(
  core: Pick<CoreApi, 'listPodForAllNamespaces'>,
  api: PodApi,
  selected: string,
  options: { watchTimeoutSeconds?: number } = {},
) {
  const recorder = new Recorder();
  const stop = new AbortController();
  const stream = new PodWatchStream(core, api, {
    labelSelector: selecting(selected),
    pageSize: 1,
    inactivityMs: 60_000,
    watchTimeoutSeconds: options.watchTimeoutSeconds ?? 300,
    reconcileEveryMs: 0,
    backoff: { initialMs: 10, maxMs: 100 },
  });
  const running = stream.run(recorder, stop.signal);
  return {
    recorder,
    until: (what: string, check: () => boolean) =>
      eventually(
        () => {
          if (!check()) throw new Error(`the stream told: ${recorder.log.join(', ')}`);
        },
        { what, timeoutMs: WAIT_MS, everyMs: 20 },
      ),
    stop: async () => {
      stop.abort();
      await running;
    },
  };
}

const streamCases: PodWatchCase[] = [
  {
    name: "PodWatchStream: its resourceVersion out of the server's window (as after a long absence), the watch's 410 makes it list again (snapshot 'expired') and go on",
    forgets: true,
    run: async (api, env) => {
      const selected = env.unique('stream-expired');
      const before = env.unique('before');
      await create(api, casePod(env, before, selected));
      await env.forgetHistory();
      // The first list is answered as if long ago: its resourceVersion is one the server forgot.
      let lists = 0;
      const core: Pick<CoreApi, 'listPodForAllNamespaces'> = {
        listPodForAllNamespaces: async (p) => {
          if (!p?._continue) lists++;
          const page = await api.listPodForAllNamespaces(p);
          if (lists === 1)
            page.metadata = { ...page.metadata, resourceVersion: env.tooOldResourceVersion };
          return page;
        },
      };
      const stream = runStream(core, api, selected);
      try {
        await stream.until('the list after the 410', () => stream.recorder.snapshots.length === 2);
        const after = env.unique('after');
        await create(api, casePod(env, after, selected));
        await stream.until('the pod made after ADDED', () =>
          stream.recorder.log.includes(`ADDED:${after}`),
        );
        // The node's status reports of `before` may come between; the stream's own steps may not.
        expect(stream.recorder.steps()).toEqual([
          'snapshot:start',
          'restart:expired',
          'snapshot:expired',
          `ADDED:${after}`,
        ]);
        expect(stream.recorder.snapshots).toEqual([
          { names: [before], cause: 'start' },
          { names: [before], cause: 'expired' },
        ]);
      } finally {
        await stream.stop();
      }
    },
  },
  {
    name: 'PodWatchStream: when the server ends a watch request (timeoutSeconds) it watches again from its last resourceVersion: nothing twice, nothing lost, no list',
    run: async (api, env) => {
      const selected = env.unique('stream-resume');
      let lists = 0;
      const core: Pick<CoreApi, 'listPodForAllNamespaces'> = {
        listPodForAllNamespaces: (p) => (lists++, api.listPodForAllNamespaces(p)),
      };
      const stream = runStream(core, api, selected, { watchTimeoutSeconds: 1 });
      try {
        await stream.until('the first list', () => stream.recorder.snapshots.length === 1);
        const first = env.unique('first');
        await create(api, casePod(env, first, selected));
        await stream.until('the first pod ADDED', () =>
          stream.recorder.log.includes(`ADDED:${first}`),
        );
        await stream.until('a request ended by the server', () =>
          stream.recorder.log.includes('restart:closed'),
        );
        const second = env.unique('second');
        await create(api, casePod(env, second, selected));
        await remove(api, env, first);
        await stream.until('the first pod DELETED', () =>
          stream.recorder.log.includes(`DELETED:${first}`),
        );
        const own = stream.recorder.steps().filter((line) => !line.startsWith('restart:'));
        expect(own).toEqual([
          'snapshot:start',
          `ADDED:${first}`,
          `ADDED:${second}`,
          `DELETED:${first}`,
        ]);
        expect(lists).toBe(1);
      } finally {
        await stream.stop();
      }
    },
  },
];

/** Every behaviour, in one table. */
export const POD_WATCH_CONTRACT: readonly PodWatchCase[] = [...watchCases, ...streamCases];
