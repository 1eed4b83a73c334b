/**
 * The pod API as PodWatchStream relies on it, in memory: a store of pods under one cluster-wide,
 * increasing resourceVersion (etcd's revision); lists by label selector, paged by `limit` and
 * `continue` at the first page's resourceVersion (a full page has a token while any pod follows
 * it in key order, selected or not, so the last page may be empty); watches from a resourceVersion that deliver
 * ADDED, MODIFIED and DELETED after it in order, a pod coming into a selector ADDED and leaving
 * it DELETED (in its last state selected); and, for a resourceVersion older than the window it keeps (the watch cache's, then
 * etcd's compaction), the API server's answer: a 200 stream whose one event is an ERROR carrying
 * `Status{code: 410, reason: 'Expired'}`, then its end.
 *
 * Held to the API server by the table in `pod-watch-contract.ts` (unit and integration runs):
 * when the two disagree, the server is right and this is fixed. Not modelled: namespaces (any is
 * taken), a kubelet (a delete removes the pod at once, as a grace of 0 does), bookmarks, a watch
 * without a resourceVersion, field selectors and set-based label selectors (these throw).
 */
import type { V1Pod, V1PodList } from '@kubernetes/client-node';
import { randomUUID } from 'node:crypto';
import { KubeApiError } from '../http/kube-http';
import { PatchType } from '../http/kube-core-api';
import type { PodApi } from './pod-watch-contract';

type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One write, as etcd's history keeps it: the pod after it, and before it for a MODIFIED. */
interface Change {
  resourceVersion: number;
  type: ChangeType;
  pod: V1Pod;
  previous?: V1Pod;
}

interface Selection {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  _continue?: string;
  resourceVersion?: string;
}

interface OpenWatch {
  matches(pod: V1Pod | undefined): boolean;
  send(type: string, object: unknown): void;
}

export interface FakePodApiOptions {
  /** Where the store's resourceVersion starts, as on a server that has run a while. */
  startResourceVersion?: number;
  /** How many changes a watch can resume through (the watch cache's capacity). */
  window?: number;
}

const key = (pod: V1Pod) => `${pod.metadata!.namespace}/${pod.metadata!.name}`;
const clone = <T>(value: T): T => structuredClone(value);

/** A Status body as the API server writes one, in the error its client throws. */
function failure(code: number, reason: string, message: string, name?: string): KubeApiError {
  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    details: name ? { name, kind: 'pods' } : undefined,
    code,
  };
  return new KubeApiError(code, JSON.stringify(status));
}

/** Equality-based label selectors (`a=b`, `a==b`, `a!=b`, `a`, `!a`, comma-separated). */
export function labelMatcher(selector: string | undefined): (pod: V1Pod | undefined) => boolean {
  const terms = (selector ?? '')
    .split(',')
    .map((term) => term.trim())
    .filter(Boolean)
    .map((term) => {
      if (/\s(in|notin)\s/.test(term)) throw new Error(`set-based selector not modelled: ${term}`);
      const match = /^(!?)([^!=]+?)\s*(?:(!=|==|=)\s*(.*))?$/.exec(term);
      if (!match) throw new Error(`label selector not understood: ${term}`);
      const [, not, name, op, value] = match;
      return (labels: Record<string, string>) => {
        const has = Object.prototype.hasOwnProperty.call(labels, name);
        if (!op) return not ? !has : has;
        return op === '!=' ? labels[name] !== value : has && labels[name] === value;
      };
    });
  return (pod) => pod !== undefined && terms.every((term) => term(pod.metadata?.labels ?? {}));
}

/** RFC 7386: objects merge, null removes, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const base =
    target !== null && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [name, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete base[name];
    else base[name] = mergePatch(base[name], value);
  }
  return base;
}

interface ContinueToken {
  rv: number;
  start: string;
}
const encode = (token: ContinueToken) => Buffer.from(JSON.stringify(token)).toString('base64');
const decode = (token: string) =>
  JSON.parse(Buffer.from(token, 'base64').toString()) as ContinueToken;

export class FakePodApi implements PodApi {
  private resourceVersion: number;
  /** Changes after this resourceVersion are kept for watches; a watch from before it is 410. */
  private compactedThrough: number;
  private readonly window: number;
  private readonly pods = new Map<string, V1Pod>();
  /** Every change since the start (lists read past pages from it); watches only the window. */
  private readonly history: Change[] = [];
  private readonly watches = new Set<OpenWatch>();

  constructor(options: FakePodApiOptions = {}) {
    this.resourceVersion = options.startResourceVersion ?? 1_000;
    this.compactedThrough = this.resourceVersion;
    this.window = options.window ?? 1_000;
  }

  /** The store's resourceVersion now. */
  get currentResourceVersion(): string {
    return String(this.resourceVersion);
  }

  /** The history so far is dropped: a watch from before now is answered 410 Expired. */
  compact(): void {
    this.compactedThrough = this.resourceVersion;
  }

  /** A status written by someone else (a kubelet): a MODIFIED of the pod. */
  setStatus(namespace: string, name: string, status: V1Pod['status']): V1Pod {
    const current = this.existing(namespace, name);
    return this.write('MODIFIED', { ...clone(current), status: clone(status) }, current);
  }

  createNamespacedPod({ namespace, body }: { namespace: string; body: V1Pod }): Promise<V1Pod> {
    const name = body.metadata?.name;
    if (!name) return Promise.reject(failure(422, 'Invalid', 'Pod "" is invalid: name required'));
    if (this.pods.has(`${namespace}/${name}`))
      return Promise.reject(failure(409, 'AlreadyExists', `pods "${name}" already exists`, name));
    const pod: V1Pod = {
      ...clone(body),
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        ...clone(body.metadata),
        namespace,
        uid: randomUUID(),
        creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') as unknown as Date,
      },
      status: { phase: 'Pending' },
    };
    return Promise.resolve(this.write('ADDED', pod));
  }

  patchNamespacedPod(
    { namespace, name, body }: { namespace: string; name: string; body: unknown },
    type: PatchType,
  ): Promise<V1Pod> {
    if (type !== PatchType.merge) throw new Error(`patch type not modelled: ${type}`);
    const current = this.pods.get(`${namespace}/${name}`);
    if (!current) return Promise.reject(this.notFound(name));
    const patched = mergePatch(clone(current), body) as V1Pod;
    // A patch that changes nothing writes nothing: no new resourceVersion, no event.
    if (JSON.stringify(patched) === JSON.stringify(current)) return Promise.resolve(clone(current));
    return Promise.resolve(this.write('MODIFIED', patched, current));
  }

  deleteNamespacedPod({ namespace, name }: { namespace: string; name: string }): Promise<V1Pod> {
    const current = this.pods.get(`${namespace}/${name}`);
    if (!current) return Promise.reject(this.notFound(name));
    return Promise.resolve(this.write('DELETED', clone(current), current));
  }

  listPodForAllNamespaces(p: Selection = {}): Promise<V1PodList> {
    if (p.fieldSelector) throw new Error('field selectors not modelled');
    const matches = labelMatcher(p.labelSelector);
    let at = this.resourceVersion;
    let after = '';
    if (p._continue) {
      ({ rv: at, start: after } = decode(p._continue));
      if (at < this.compactedThrough)
        return Promise.reject(
          failure(
            410,
            'Expired',
            'The provided continue parameter is too old to display a consistent list result.',
          ),
        );
    }
    // In etcd's key order; a full page has a token while any pod follows, selected or not.
    const following = [...this.stateAt(at).entries()]
      .filter(([name]) => name > after)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const all = following.filter(([, pod]) => matches(pod));
    const page = p.limit ? all.slice(0, p.limit) : all;
    const last = page[page.length - 1]?.[0];
    const more = !!p.limit && page.length === p.limit && following.some(([name]) => name > last);
    const token = more && last ? encode({ rv: at, start: last }) : undefined;
    return Promise.resolve({
      apiVersion: 'v1',
      kind: 'PodList',
      metadata: { resourceVersion: String(at), _continue: token },
      items: page.map(([, pod]) => clone(pod)),
    });
  }

  watch(
    path: string,
    query: Record<string, unknown>,
    onEvent: (type: string, object: unknown) => void,
    done: (error: unknown) => void,
  ): Promise<AbortController> {
    if (path !== '/api/v1/pods') throw new Error(`watch path not modelled: ${path}`);
    const from = Number(query.resourceVersion);
    if (!query.resourceVersion || !Number.isInteger(from) || from <= 0)
      throw new Error('a watch without a resourceVersion is not modelled');
    const controller = new AbortController();
    const queue: Array<[string, unknown]> = [];
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.watches.delete(watch);
      clearTimeout(timeout);
      setImmediate(() => done(null));
    };
    // Events reach the caller asynchronously and in order, as lines of a response do.
    const drain = () => {
      while (queue.length && !controller.signal.aborted) onEvent(...queue.shift()!);
    };
    const watch: OpenWatch = {
      matches: labelMatcher(query.labelSelector as string | undefined),
      send: (type, object) => {
        if (ended) return;
        queue.push([type, clone(object)]);
        if (queue.length === 1) setImmediate(drain);
      },
    };
    const seconds = Number(query.timeoutSeconds ?? 0);
    const timeout = seconds > 0 ? setTimeout(end, seconds * 1_000) : undefined;
    controller.signal.addEventListener('abort', end, { once: true });
    if (from < this.compactedThrough) {
      watch.send('ERROR', {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `too old resource version: ${from} (${this.compactedThrough})`,
        reason: 'Expired',
        code: 410,
      });
      end();
      return Promise.resolve(controller);
    }
    this.watches.add(watch);
    for (const change of this.history)
      if (change.resourceVersion > from) this.notify(watch, change);
    return Promise.resolve(controller);
  }

  private existing(namespace: string, name: string): V1Pod {
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod) throw this.notFound(name);
    return pod;
  }

  private notFound(name: string): KubeApiError {
    return failure(404, 'NotFound', `pods "${name}" not found`, name);
  }

  /** A write: the next resourceVersion, the store, the history and the open watches. */
  private write(type: ChangeType, pod: V1Pod, previous?: V1Pod): V1Pod {
    const resourceVersion = ++this.resourceVersion;
    pod.metadata = { ...pod.metadata, resourceVersion: String(resourceVersion) };
    if (type === 'DELETED') this.pods.delete(key(pod));
    else this.pods.set(key(pod), pod);
    const change: Change = { resourceVersion, type, pod: clone(pod), previous };
    this.history.push(change);
    const kept = this.history.filter((c) => c.resourceVersion > this.compactedThrough);
    if (kept.length > this.window)
      this.compactedThrough = kept[kept.length - this.window - 1].resourceVersion;
    for (const watch of this.watches) this.notify(watch, change);
    return clone(pod);
  }

  /** A change as a watch with a selector sees it: entering it ADDED, leaving it DELETED. */
  private notify(watch: OpenWatch, { type, pod, previous }: Change): void {
    const now = type !== 'DELETED' && watch.matches(pod);
    const before = type === 'ADDED' ? false : watch.matches(previous);
    if (now && !before) watch.send('ADDED', pod);
    else if (now && before) watch.send('MODIFIED', pod);
    // Leaving the selector: its last state selected, at the change's resourceVersion.
    else if (before && type === 'MODIFIED')
      watch.send('DELETED', {
        ...previous,
        metadata: { ...previous!.metadata, resourceVersion: pod.metadata!.resourceVersion },
      });
    else if (before) watch.send('DELETED', pod);
  }

  /** The pods at a resourceVersion, replayed from the history. */
  private stateAt(resourceVersion: number): Map<string, V1Pod> {
    if (resourceVersion === this.resourceVersion) return this.pods;
    const state = new Map<string, V1Pod>();
    for (const change of this.history) {
      if (change.resourceVersion > resourceVersion) break;
      if (change.type === 'DELETED') state.delete(key(change.pod));
      else state.set(key(change.pod), change.pod);
    }
    return state;
  }
}
