import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

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
    const registers = [registry];
    this.podEvents = new Counter({
      name: 'kpm_watcher_pod_events_total',
      help: 'Pod events seen on the watch stream and in re-lists, by type',
      labelNames: ['type'],
      registers,
    });
    this.terminationsPublished = new Counter({
      name: 'kpm_watcher_terminations_published_total',
      help: 'Terminations acknowledged by Kafka, by detection source and reason',
      labelNames: ['detected_by', 'reason'],
      registers,
    });
    this.publishFailures = new Counter({
      name: 'kpm_watcher_publish_failures_total',
      help: 'Failed attempts to publish a batch of terminations (retried)',
      registers,
    });
    this.watchRestarts = new Counter({
      name: 'kpm_watcher_watch_restarts_total',
      help: 'Watch requests that ended and were resumed or re-listed, by cause',
      labelNames: ['why'],
      registers,
    });
    this.finalizerReleases = new Counter({
      name: 'kpm_watcher_finalizer_releases_total',
      help: 'Termination-record finalizer removals, by result',
      labelNames: ['result'],
      registers,
    });
    this.publicationLag = new Histogram({
      name: 'kpm_watcher_publication_lag_seconds',
      help: "Seconds from a pod's finish time to the acknowledged publication of its termination",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers,
    });
    this.leader = new Gauge({
      name: 'kpm_watcher_leader',
      help: '1 while this replica holds the Lease and watches, else 0',
      registers,
    });
    this.publishBacklog = new Gauge({
      name: 'kpm_watcher_publish_backlog',
      help: 'Terminations waiting for publication',
      registers,
    });
  }
}
