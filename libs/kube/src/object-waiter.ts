import { BACKOFF, backoffDelay, delay } from '@kpm/common';
import type { KubeWatch } from './http/kube-watch';

/** The metadata every Kubernetes object has that a wait needs. */
interface KubeObject {
  metadata?: { name?: string; uid?: string; resourceVersion?: string };
}

interface WaitSpec<T extends KubeObject> {
  /** The watch path, e.g. `/api/v1/namespaces/<ns>/pods`, `/api/v1/pods`, `/api/v1/namespaces`. */
  path: string;
  /** The matching list call (same selectors): its items and resourceVersion start the watch. */
  list: () => Promise<{ items: T[]; metadata?: { resourceVersion?: string } }>;
  labelSelector?: string;
  fieldSelector?: string;
  /** What is waited for: uids or names, as `keyOf` gives them. */
  keys: readonly string[];
  keyOf: (object: T) => string | undefined;
  /** Whether the object (undefined: it is gone) has reached the state waited for. */
  done: (object: T | undefined) => boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}

interface WaitResult<T> {
  /** Keys not done when the wait ended (timeout or abort). */
  pending: string[];
  /** The last state seen of each key; undefined once gone. */
  last: Map<string, T | undefined>;
}

/**
 * Waits on a watch — list, then watch from the list's resourceVersion — until every key is done,
 * the timeout passes or the signal aborts. A broken stream is resumed by listing again, so no
 * change is missed; nothing polls.
 */
export class ObjectWaiter {
  constructor(private readonly watch: Pick<KubeWatch, 'watch'>) {}

  async waitFor<T extends KubeObject>(spec: WaitSpec<T>): Promise<WaitResult<T>> {
    const last = new Map<string, T | undefined>();
    const wanted = new Set(spec.keys);
    const pending = () => [...wanted].filter((key) => !spec.done(last.get(key)));
    if (wanted.size === 0) return { pending: [], last };
    const deadline = Date.now() + spec.timeoutMs;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => stop.abort(), Math.max(0, spec.timeoutMs));
    try {
      // Its own loop, not retry(): it ends when the objects are done or the wait's deadline
      // passes, and a watch that ends normally lists again at once, with no backoff.
      for (let attempt = 1; !stop.signal.aborted; attempt++) {
        try {
          const list = await spec.list();
          const present = new Set<string>();
          for (const item of list.items) {
            const key = spec.keyOf(item);
            if (key === undefined || !wanted.has(key)) continue;
            present.add(key);
            last.set(key, item);
          }
          for (const key of wanted) if (!present.has(key)) last.set(key, undefined);
          if (pending().length === 0) break;
          await this.watchUntilDone(
            spec,
            list.metadata?.resourceVersion,
            last,
            wanted,
            deadline,
            stop.signal,
          );
          if (pending().length === 0) break;
        } catch {
          // The API server is briefly unreachable: list again after a backoff, within the deadline.
          await delay(backoffDelay(attempt, BACKOFF.kubeWait), stop.signal);
        }
      }
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
    }
    return { pending: pending(), last };
  }

  /** Resolves when every key is done, the stream ends (caller re-lists) or the wait is aborted. */
  private watchUntilDone<T extends KubeObject>(
    spec: WaitSpec<T>,
    resourceVersion: string | undefined,
    last: Map<string, T | undefined>,
    wanted: Set<string>,
    deadline: number,
    signal: AbortSignal,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let controller: AbortController | undefined;
      let settled = false;
      const finish = (error?: unknown) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        controller?.abort();
        if (error && !signal.aborted)
          reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
        else resolve();
      };
      const onAbort = () => finish();
      signal.addEventListener('abort', onAbort, { once: true });
      const allDone = () => [...wanted].every((key) => spec.done(last.get(key)));
      const query = {
        labelSelector: spec.labelSelector,
        fieldSelector: spec.fieldSelector,
        resourceVersion,
        // The server ends the stream by then at the latest; the caller lists again if needed.
        timeoutSeconds: Math.max(1, Math.ceil((deadline - Date.now()) / 1000)),
      };
      this.watch
        .watch(
          spec.path,
          query,
          (type: string, received: unknown) => {
            const object = received as T;
            if (type === 'ERROR')
              return finish(new Error(`watch error: ${JSON.stringify(object)}`));
            const key = spec.keyOf(object);
            if (key === undefined || !wanted.has(key)) return;
            last.set(key, type === 'DELETED' ? undefined : object);
            if (allDone()) finish();
          },
          (error: unknown) => finish(error ?? undefined),
        )
        .then((c) => {
          controller = c;
          if (settled) c.abort();
        })
        .catch(finish);
    });
  }
}
