import type { V1Pod } from '@kubernetes/client-node';
import {
  backoffDelay,
  errorText,
  logEvent,
  systemClock,
  type BackoffPolicy,
  type Clock,
  type LogEvent,
} from '@kpm/common';
import type { NodeLoss, PodStreamHandler, StreamEnd } from '@kpm/kube';
import { FinalizerReleaser } from './finalizer-releaser';
import { NodeLossPoll } from './node-loss-poll';
import type { Termination } from './termination';
import { TerminationPublisher } from './termination-publisher';
import type { TerminationTracker, TrackerAction } from './termination-tracker';
import type { WatcherMetrics } from './watcher-metrics';

interface TerminationWatchDeps {
  /** What is known of the pods: fresh for a new term, kept when the same replica leads on. */
  tracker: TerminationTracker;
  /** The pod stream (PodWatchStream on the real API server). */
  stream: { run(handler: PodStreamHandler, signal: AbortSignal): Promise<void> };
  /** Writes the batch to Kafka and resolves on the broker's acknowledgement. */
  publish(batch: readonly Termination[]): Promise<void>;
  /** Removes the termination-record finalizer (guarded patch). */
  releaseFinalizer(pod: V1Pod): Promise<unknown>;
  /** The nodes the cluster has lost now (Ready Unknown). */
  lostNodes(signal: AbortSignal): Promise<Map<string, NodeLoss>>;
  /** How often the lost nodes are asked (0: never). */
  nodeCheckMs: number;
  batchSize: number;
  finalizerConcurrency: number;
  backoff: BackoffPolicy;
  clock?: Clock;
  metrics: WatcherMetrics;
  /** Readiness of the watch stream. */
  established(ready: boolean, detail: string): void;
  logger: { log(entry: LogEvent): void; warn(entry: LogEvent): void };
}

/**
 * One leadership term of the watcher: pods in, terminations out. Every term starts with a list;
 * its memory (the tracker) is fresh unless the same replica led just before, so what another
 * replica recorded meanwhile is never mistaken for a pod that vanished.
 */
export class TerminationWatch {
  constructor(private readonly deps: TerminationWatchDeps) {}

  async run(signal: AbortSignal): Promise<void> {
    await new WatchTerm(this.deps, signal).run();
  }
}

/** The machinery of one term: stream handler → tracker → publisher and finalizer releaser. */
class WatchTerm {
  private readonly releaser: FinalizerReleaser;
  private readonly publisher: TerminationPublisher;
  /** Owed releases (API server unreachable) are retried with backoff, not only on the next event. */
  private releaseFailures = 0;
  private releaseRetry?: AbortController;
  private readonly clock: Clock;

  constructor(
    private readonly deps: TerminationWatchDeps,
    private readonly signal: AbortSignal,
  ) {
    this.clock = deps.clock ?? systemClock;
    this.releaser = new FinalizerReleaser(
      (pod) => deps.releaseFinalizer(pod),
      deps.finalizerConcurrency,
      { finished: (pod, done, error) => this.releaseFinished(pod, done, error) },
    );
    this.publisher = new TerminationPublisher(
      (batch) => deps.publish(batch),
      { batchSize: deps.batchSize, backoff: deps.backoff, clock: this.clock },
      {
        published: (batch) => this.published(batch),
        failed: (error, attempt) => this.publishFailed(error, attempt),
      },
    );
  }

  async run(): Promise<void> {
    const { tracker, stream, logger } = this.deps;
    this.apply(tracker.resume());
    const nodes = new NodeLossPoll({
      lostNodes: (signal) => this.deps.lostNodes(signal),
      lost: (lost) => this.apply(tracker.nodes(lost)),
      everyMs: this.deps.nodeCheckMs,
      clock: this.clock,
      logger,
    }).run(this.signal);
    await stream.run(this.streamHandler(), this.signal);
    await nodes;
    this.releaseRetry?.abort();
    await this.publisher.stop();
    await this.releaser.stop();
  }

  private streamHandler(): PodStreamHandler {
    const { metrics, logger, tracker } = this.deps;
    return {
      snapshot: (pods, cause) => {
        metrics.podEvents.inc({ type: 'LISTED' }, pods.length);
        logger.log(logEvent('pods.listed', { pods: pods.length, cause }));
        this.apply(tracker.resync(pods));
        this.apply(tracker.pendingReleases());
      },
      event: (type, pod) => {
        metrics.podEvents.inc({ type });
        this.apply(tracker.observe(type, pod, 'watch'));
      },
      established: (ready, detail) => this.deps.established(ready, detail),
      restarted: (why: StreamEnd, detail?: string) => {
        metrics.watchRestarts.inc({ why });
        if (why !== 'closed') logger.log(logEvent('pods.watch_restarted', { why, detail }));
      },
    };
  }

  private apply(actions: TrackerAction[]): void {
    for (const action of actions) {
      if (action.kind === 'publish') this.publisher.enqueue(action.termination);
      else this.releaser.enqueue(action.pod);
    }
    this.deps.metrics.publishBacklog.set(this.publisher.backlog);
  }

  private published(batch: readonly Termination[]): void {
    const { metrics, tracker } = this.deps;
    const now = this.clock.now();
    for (const termination of batch) {
      const { verdict, detectedBy } = termination;
      metrics.terminationsPublished.inc({ detected_by: detectedBy, reason: verdict.reason });
      const since = Date.parse(verdict.finishedAt ?? termination.observedAt);
      if (!Number.isNaN(since)) metrics.publicationLag.observe(Math.max(0, now - since) / 1000);
    }
    metrics.publishBacklog.set(this.publisher.backlog);
    this.apply(tracker.published(batch.map((termination) => termination.identity.podUid)));
  }

  private publishFailed(error: unknown, attempt: number): void {
    this.deps.metrics.publishFailures.inc();
    this.deps.logger.warn(
      logEvent('terminations.publish_failed', { attempt, error: errorText(error) }),
    );
  }

  private releaseFinished(pod: V1Pod, done: boolean, error: unknown): void {
    this.deps.metrics.finalizerReleases.inc({ result: done ? 'removed' : 'failed' });
    this.deps.tracker.released(pod.metadata?.uid ?? '', done);
    if (done) {
      this.releaseFailures = 0;
    } else {
      this.deps.logger.warn(
        logEvent('finalizer.release_failed', { ...podFields(pod), error: errorText(error) }),
      );
      this.retryReleasesLater();
    }
  }

  /**
   * One timer for every pending release, not a `retry()` per pod: when it fires it applies the
   * tracker's pending set as it is then (grown or shrunk meanwhile); the delay is the shared
   * backoff rule.
   */
  private retryReleasesLater(): void {
    if (this.releaseRetry || this.signal.aborted) return;
    const retry = new AbortController();
    this.releaseRetry = retry;
    const wait = backoffDelay(++this.releaseFailures, this.deps.backoff);
    void this.clock.sleep(wait, retry.signal).then(() => {
      if (retry.signal.aborted) return;
      this.releaseRetry = undefined;
      this.apply(this.deps.tracker.pendingReleases());
    });
  }
}

/** `namespace/name (uid)`, for log lines. */
/** A pod as log fields: its namespace, name and uid. */
function podFields(pod: V1Pod): { namespace?: string; pod?: string; podUid?: string } {
  return { namespace: pod.metadata?.namespace, pod: pod.metadata?.name, podUid: pod.metadata?.uid };
}
