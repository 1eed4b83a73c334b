import type { V1Pod } from '@kubernetes/client-node';
import type { CoreApi } from './http/kube-core-api';
import type { KubeWatch } from './http/kube-watch';
import {
  backoffDelay,
  delay,
  errorText,
  logEvent,
  type BackoffPolicy,
  type LogEvent,
} from '@kpm/common';
import { failureOf } from './kube-errors';
import { withKubeRetry } from './kube-retry';

/** Why a list came: the first one, after a 410 (history gone), or the periodic reconcile. */
export type SnapshotCause = 'start' | 'expired' | 'reconcile';

/** Why a watch request ended and the stream went on. */
export type StreamEnd = 'closed' | 'expired' | 'inactivity' | 'reconcile' | 'error';

export type PodEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface PodStreamHandler {
  /** A complete, consistent list; the events that follow continue from it. */
  snapshot(pods: V1Pod[], cause: SnapshotCause): void;
  /** One change, in resourceVersion order. The pod is plain JSON (timestamps are strings). */
  event(type: PodEventType, pod: V1Pod): void;
  /** The watch is (not) established: readiness. */
  established(ready: boolean, detail: string): void;
  /** A watch request ended and the stream continues (metrics, logs). */
  restarted?(why: StreamEnd, detail?: string): void;
}

export interface PodWatchStreamOptions {
  labelSelector: string;
  pageSize: number;
  /** A stream silent (no event, no bookmark) this long is presumed dead. */
  inactivityMs: number;
  /** Server-side timeout of each watch request. */
  watchTimeoutSeconds: number;
  /** Re-list this often (0: only at start and after 410). */
  reconcileEveryMs: number;
  backoff: BackoffPolicy;
  logger?: { warn(entry: LogEvent): void };
}

/** The Status object of a watch ERROR event. */
interface WatchStatus {
  code?: number;
  reason?: string;
  message?: string;
}

interface WatchEnd {
  why: StreamEnd;
  detail?: string;
  /** The request delivered something, so the failure count starts over. */
  progressed: boolean;
}

/**
 * List-then-watch of pods across namespaces that owns its loop, because client-node's informer
 * stops on errors, never asks for bookmarks and has no resync:
 * list (paged) → watch from the list's resourceVersion with bookmarks → remember the last
 * resourceVersion (bookmarks too) → resume from it when a request ends → re-list on 410 →
 * an inactivity watchdog aborts a silent stream → exponential backoff with jitter on errors →
 * a periodic re-list. Pods are never read one by one.
 */
export class PodWatchStream {
  constructor(
    private readonly core: Pick<CoreApi, 'listPodForAllNamespaces'>,
    private readonly watch: Pick<KubeWatch, 'watch'>,
    private readonly options: PodWatchStreamOptions,
  ) {}

  /** Runs until `signal` aborts; never throws for Kubernetes failures (they are retried). */
  async run(handler: PodStreamHandler, signal: AbortSignal): Promise<void> {
    // Its own loop, not retry(): as client-go's reflector, list and watch share one failure
    // count, reset only by a watch that delivered events, and the loop never ends by itself.
    let resourceVersion: string | undefined;
    let cause: SnapshotCause = 'start';
    let listedAt = 0;
    let failures = 0;
    let paged = true;
    while (!signal.aborted) {
      if (resourceVersion === undefined) {
        try {
          const list = await this.list(signal, paged);
          if (signal.aborted) return;
          handler.snapshot(list.pods, cause);
          resourceVersion = list.resourceVersion;
          listedAt = Date.now();
          paged = true;
        } catch (error) {
          const failure = failureOf(error);
          // A continue token past etcd's compaction: list again without pages (as client-go does).
          if (failure.kind === 'gone') paged = false;
          handler.established(false, `list failed: ${failure.reason}: ${failure.message}`);
          this.options.logger?.warn(
            logEvent('pods.list_failed', { reason: failure.reason, error: failure.message }),
          );
          await delay(backoffDelay(++failures, this.options.backoff), signal);
          continue;
        }
      }
      const reconcileIn = this.options.reconcileEveryMs
        ? Math.max(0, listedAt + this.options.reconcileEveryMs - Date.now())
        : undefined;
      const end = await this.watchOnce(
        resourceVersion,
        handler,
        signal,
        (version) => (resourceVersion = version),
        reconcileIn,
      );
      if (signal.aborted) return;
      handler.established(false, `watch ended: ${end.why}${end.detail ? `: ${end.detail}` : ''}`);
      handler.restarted?.(end.why, end.detail);
      if (end.why === 'expired' || end.why === 'reconcile') {
        cause = end.why;
        resourceVersion = undefined;
      }
      if (end.progressed) failures = 0;
      if (end.why === 'error' || (end.why === 'closed' && !end.progressed)) {
        this.options.logger?.warn(
          logEvent('pods.watch_retrying', { why: end.why, detail: end.detail ?? 'no events' }),
        );
        await delay(backoffDelay(++failures, this.options.backoff), signal);
      }
    }
  }

  /** Every kpm pod, page by page; the list's resourceVersion is where the watch starts. */
  private async list(
    signal: AbortSignal,
    paged: boolean,
  ): Promise<{ pods: V1Pod[]; resourceVersion: string }> {
    const pods: V1Pod[] = [];
    let resourceVersion = '';
    let token: string | undefined;
    do {
      const page = await withKubeRetry(
        () =>
          this.core.listPodForAllNamespaces({
            labelSelector: this.options.labelSelector,
            limit: paged ? this.options.pageSize : undefined,
            _continue: token,
          }),
        { signal },
      );
      pods.push(...page.items);
      resourceVersion = page.metadata?.resourceVersion ?? '';
      token = page.metadata?._continue || undefined;
    } while (token && !signal.aborted);
    return { pods, resourceVersion };
  }

  /** One watch request, resolved when it ends for any reason. */
  private watchOnce(
    resourceVersion: string,
    handler: PodStreamHandler,
    signal: AbortSignal,
    advance: (resourceVersion: string) => void,
    reconcileInMs: number | undefined,
  ): Promise<WatchEnd> {
    return new WatchRequest(this.watch, this.options, handler, advance).run(
      resourceVersion,
      signal,
      reconcileInMs,
    );
  }
}

/**
 * One watch request from a resourceVersion: the watch, the handling of its events (as
 * client-go's reflector splits list / watch / handle), and the ways it ends — closed by the
 * server, expired (410), an error, silent past the inactivity limit, the reconcile time, or the
 * stream stopping. It settles once, with whether it delivered anything.
 */
class WatchRequest {
  private lastActivity = Date.now();
  private progressed = false;
  private settled = false;
  private abortRequest: AbortController | undefined;
  private readonly cleanups: Array<() => void> = [];
  private resolve: (end: WatchEnd) => void = () => undefined;

  constructor(
    private readonly watch: Pick<KubeWatch, 'watch'>,
    private readonly options: PodWatchStreamOptions,
    private readonly handler: PodStreamHandler,
    private readonly advance: (resourceVersion: string) => void,
  ) {}

  run(
    resourceVersion: string,
    signal: AbortSignal,
    reconcileInMs: number | undefined,
  ): Promise<WatchEnd> {
    return new Promise<WatchEnd>((resolve) => {
      this.resolve = resolve;
      this.guard(signal, reconcileInMs);
      this.start(resourceVersion);
    });
  }

  /** The inactivity watchdog, the reconcile timer and the stream's stop end the request. */
  private guard(signal: AbortSignal, reconcileInMs: number | undefined): void {
    const { inactivityMs } = this.options;
    const watchdog = setInterval(
      () => {
        if (Date.now() - this.lastActivity > inactivityMs)
          this.finish('inactivity', `silent for ${inactivityMs} ms`);
      },
      Math.max(50, Math.min(1000, inactivityMs / 4)),
    );
    this.cleanups.push(() => clearInterval(watchdog));
    if (reconcileInMs !== undefined) {
      const reconcile = setTimeout(() => this.finish('reconcile'), reconcileInMs);
      this.cleanups.push(() => clearTimeout(reconcile));
    }
    const onAbort = () => this.finish('closed', 'stopped');
    signal.addEventListener('abort', onAbort, { once: true });
    this.cleanups.push(() => signal.removeEventListener('abort', onAbort));
  }

  private start(resourceVersion: string): void {
    this.watch
      .watch(
        '/api/v1/pods',
        {
          labelSelector: this.options.labelSelector,
          resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: this.options.watchTimeoutSeconds,
        },
        (type: string, object: unknown) => this.handle(type, object),
        (error: unknown) => this.done(error),
      )
      .then((controller) => {
        this.abortRequest = controller;
        if (this.settled) controller.abort();
        else this.handler.established(true, `watching from resourceVersion ${resourceVersion}`);
      })
      .catch((error: unknown) => this.done(error ?? new Error('watch failed')));
  }

  /** One event: pods go to the handler, bookmarks only advance the resourceVersion. */
  private handle(type: string, object: unknown): void {
    if (this.settled) return;
    this.lastActivity = Date.now();
    if (type === 'ERROR') return this.failed(object as WatchStatus);
    const pod = object as V1Pod;
    if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') {
      try {
        this.handler.event(type, pod);
      } catch (error) {
        this.options.logger?.warn(
          logEvent('pods.event_handler_failed', {
            type,
            pod: pod.metadata?.name,
            error: errorText(error),
          }),
        );
      }
    } else if (type !== 'BOOKMARK') {
      return;
    }
    this.progressed = true;
    const version = pod.metadata?.resourceVersion;
    if (version) this.advance(version);
  }

  /** An ERROR event: 410 means the history is gone (re-list); anything else is retried. */
  private failed(status: WatchStatus): void {
    if (status.code === 410) this.finish('expired', status.message);
    else this.finish('error', `${status.reason ?? 'Error'}: ${status.message ?? ''}`);
  }

  /** The request ended: closed by the server, aborted, or failed. */
  private done(error: unknown): void {
    if (!error) return this.finish('closed');
    if ((error as { name?: string }).name === 'AbortError') return this.finish('closed', 'aborted');
    if ((error as { statusCode?: number }).statusCode === 410)
      return this.finish('expired', 'HTTP 410');
    this.finish('error', errorText(error));
  }

  private finish(why: StreamEnd, detail?: string): void {
    if (this.settled) return;
    this.settled = true;
    for (const cleanup of this.cleanups) cleanup();
    this.abortRequest?.abort();
    this.resolve({ why, detail, progressed: this.progressed });
  }
}
