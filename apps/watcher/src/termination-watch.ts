import type { V1Pod } from '@kubernetes/client-node';
import type { BackoffPolicy } from '@kpm/common';
import type { KpmLabels, PodStreamHandler, StreamEnd } from '@kpm/kube';
import { FinalizerReleaser } from './finalizer-releaser';
import type { Termination } from './termination';
import { TerminationPublisher } from './termination-publisher';
import { TerminationTracker, type TrackerAction } from './termination-tracker';
import type { WatcherMetrics } from './watcher-metrics';

export interface TerminationWatchDeps {
  /** The pod stream (PodWatchStream on the real API server). */
  stream: { run(handler: PodStreamHandler, signal: AbortSignal): Promise<void> };
  labels: KpmLabels;
  fatalWaitingReasons: ReadonlySet<string>;
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
 * One leadership term of the watcher: pods in, terminations out. Every term starts from a fresh
 * list with an empty memory, so what another replica recorded meanwhile is never mistaken for a
 * pod that vanished.
 */
export class TerminationWatch {
  constructor(private readonly deps: TerminationWatchDeps) {}

  async run(signal: AbortSignal): Promise<void> {
    const { deps } = this;
    const { metrics, logger } = deps;
    const tracker = new TerminationTracker(deps.labels, deps.fatalWaitingReasons);
    const releaser = new FinalizerReleaser(
      (pod) => deps.releaseFinalizer(pod),
      deps.finalizerConcurrency,
      {
        finished: (pod, done, error) => {
          metrics.finalizerReleases.inc({ result: done ? 'removed' : 'failed' });
          if (!done) logger.warn(`finalizer of ${describe(pod)} not removed yet: ${String(error)}`);
          tracker.released(pod.metadata?.uid ?? '', done);
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
    await publisher.stop();
    await releaser.stop();
  }
}

function describe(pod: V1Pod): string {
  return `${pod.metadata?.namespace}/${pod.metadata?.name} (${pod.metadata?.uid})`;
}
