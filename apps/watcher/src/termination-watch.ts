import type { V1Pod } from '@kubernetes/client-node';
import { backoffDelay, type BackoffPolicy } from '@kpm/common';
import type { PodStreamHandler, StreamEnd } from '@kpm/kube';
import { FinalizerReleaser } from './finalizer-releaser';
import type { Termination } from './termination';
import { TerminationPublisher } from './termination-publisher';
import type { TerminationTracker, TrackerAction } from './termination-tracker';
import type { WatcherMetrics } from './watcher-metrics';

export interface TerminationWatchDeps {
  /** What is known of the pods: fresh for a new term, kept when the same replica leads on. */
  tracker: TerminationTracker;
  /** The pod stream (PodWatchStream on the real API server). */
  stream: { run(handler: PodStreamHandler, signal: AbortSignal): Promise<void> };
  /** Writes the batch to Kafka and resolves on the broker's acknowledgement. */
  publish(batch: readonly Termination[]): Promise<void>;
  /** Removes the termination-record finalizer (guarded patch). */
  releaseFinalizer(pod: V1Pod): Promise<unknown>;
  batchSize: number;
  finalizerConcurrency: number;
  backoff: BackoffPolicy;
  metrics: WatcherMetrics;
  /** Readiness of the watch stream. */
  established(ready: boolean, detail: string): void;
  logger: { log(message: string): void; warn(message: string): void };
}

/**
 * One leadership term of the watcher: pods in, terminations out. Every term starts with a list;
 * its memory (the tracker) is fresh unless the same replica led just before, so what another
 * replica recorded meanwhile is never mistaken for a pod that vanished.
 */
export class TerminationWatch {
  constructor(private readonly deps: TerminationWatchDeps) {}

  async run(signal: AbortSignal): Promise<void> {
    const { deps } = this;
    const { metrics, logger, tracker } = deps;
    // Owed releases (API server unreachable) are retried with backoff, not only on the next event.
    let releaseFailures = 0;
    let releaseRetry: NodeJS.Timeout | undefined;
    const retryReleasesLater = () => {
      if (releaseRetry || signal.aborted) return;
      releaseRetry = setTimeout(
        () => {
          releaseRetry = undefined;
          apply(tracker.pendingReleases());
        },
        backoffDelay(++releaseFailures, deps.backoff),
      );
    };
    const releaser = new FinalizerReleaser(
      (pod) => deps.releaseFinalizer(pod),
      deps.finalizerConcurrency,
      {
        finished: (pod, done, error) => {
          metrics.finalizerReleases.inc({ result: done ? 'removed' : 'failed' });
          tracker.released(pod.metadata?.uid ?? '', done);
          if (done) {
            releaseFailures = 0;
          } else {
            logger.warn(`finalizer of ${describe(pod)} not removed yet: ${String(error)}`);
            retryReleasesLater();
          }
        },
      },
    );
    const publisher = new TerminationPublisher(
      (batch) => deps.publish(batch),
      { batchSize: deps.batchSize, backoff: deps.backoff },
      {
        published: (batch) => {
          const now = Date.now();
          for (const termination of batch) {
            const { verdict, detectedBy } = termination;
            metrics.terminationsPublished.inc({ detected_by: detectedBy, reason: verdict.reason });
            const since = Date.parse(verdict.finishedAt ?? termination.observedAt);
            if (!Number.isNaN(since))
              metrics.publicationLag.observe(Math.max(0, now - since) / 1000);
          }
          metrics.publishBacklog.set(publisher.backlog);
          apply(tracker.published(batch.map((termination) => termination.identity.podUid)));
        },
        failed: (error, attempt) => {
          metrics.publishFailures.inc();
          logger.warn(`publishing terminations failed (attempt ${attempt}): ${String(error)}`);
        },
      },
    );
    const apply = (actions: TrackerAction[]): void => {
      for (const action of actions) {
        if (action.kind === 'publish') publisher.enqueue(action.termination);
        else releaser.enqueue(action.pod);
      }
      metrics.publishBacklog.set(publisher.backlog);
    };

    apply(tracker.resume());
    await deps.stream.run(
      {
        snapshot: (pods, cause) => {
          metrics.podEvents.inc({ type: 'LISTED' }, pods.length);
          logger.log(`listed ${pods.length} pods (${cause})`);
          apply(tracker.resync(pods));
          apply(tracker.pendingReleases());
        },
        event: (type, pod) => {
          metrics.podEvents.inc({ type });
          apply(tracker.observe(type, pod, 'watch'));
        },
        established: (ready, detail) => deps.established(ready, detail),
        restarted: (why: StreamEnd, detail?: string) => {
          metrics.watchRestarts.inc({ why });
          if (why !== 'closed')
            logger.log(`pod watch restarts (${why}${detail ? `: ${detail}` : ''})`);
        },
      },
      signal,
    );
    clearTimeout(releaseRetry);
    await publisher.stop();
    await releaser.stop();
  }
}

function describe(pod: V1Pod): string {
  return `${pod.metadata?.namespace}/${pod.metadata?.name} (${pod.metadata?.uid})`;
}
