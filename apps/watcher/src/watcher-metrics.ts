import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ServiceMetrics } from '@kpm/service-kit';

/** The watcher's Prometheus metrics, registered in the service's registry (`/metrics`). */
export class WatcherMetrics {
  readonly podEvents: Counter<'type'>;
  readonly terminationsPublished: Counter<'detected_by' | 'reason'>;
  readonly publishFailures: Counter;
  readonly watchRestarts: Counter<'why'>;
  readonly finalizerReleases: Counter<'result'>;
  /** From the pod's finish time (or when it was seen ending) to Kafka's acknowledgement. */
  readonly publicationLag: Histogram;
  readonly leader: Gauge;
  readonly publishBacklog: Gauge;

  constructor(registry: Registry) {
    const metrics = new ServiceMetrics(registry, 'watcher');
    this.podEvents = metrics.counter(
      'pod_events_total',
      'Pod events seen on the watch stream and in re-lists, by type',
      ['type'],
    );
    this.terminationsPublished = metrics.counter(
      'terminations_published_total',
      'Terminations acknowledged by Kafka, by detection source and reason',
      ['detected_by', 'reason'],
    );
    this.publishFailures = metrics.counter(
      'publish_failures_total',
      'Failed attempts to publish a batch of terminations (retried)',
    );
    this.watchRestarts = metrics.counter(
      'watch_restarts_total',
      'Watch requests that ended and were resumed or re-listed, by cause',
      ['why'],
    );
    this.finalizerReleases = metrics.counter(
      'finalizer_releases_total',
      'Termination-record finalizer removals, by result',
      ['result'],
    );
    this.publicationLag = metrics.histogram(
      'publication_lag_seconds',
      "Seconds from a pod's finish time to the acknowledged publication of its termination",
      [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
    );
    this.leader = metrics.gauge(
      'leader',
      '1 while this replica holds the Lease and watches, else 0',
    );
    this.publishBacklog = metrics.gauge('publish_backlog', 'Terminations waiting for publication');
  }
}
