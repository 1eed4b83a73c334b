import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { Registry } from 'prom-client';
import { systemClock } from '@kpm/common';
import { eventSource, topicName } from '@kpm/contracts';
import { KpmSettings } from '@kpm/config';
import { EventProducer, type KafkaClient } from '@kpm/kafka';
import {
  createKubeApis,
  KpmLabels,
  LeaseElector,
  lostNodes,
  PodGateway,
  PodWatchStream,
} from '@kpm/kube';
import { KAFKA_CLIENT, Readiness } from '@kpm/service-kit';
import { readRunningPods } from './process-table-sweep';
import { terminationRecord } from './termination';
import { Watcher, WATCH_PART, type WatcherPorts } from './watcher';
import { WatcherMetrics } from './watcher-metrics';

/**
 * The watcher in Nest: builds the Watcher (watcher.ts) over the Kubernetes API, the Kafka
 * producer and the system clock at start, and stops it before the producer disconnects. A standby
 * replica is ready (it is healthy and waiting).
 */
@Injectable()
export class WatcherService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Watcher');
  private readonly stopper = new AbortController();
  private readonly metrics: WatcherMetrics;
  private running?: Promise<void>;

  // Explicit tokens: under tsx (esbuild) there is no emitted decorator metadata to infer them.
  constructor(
    @Inject(KpmSettings)
    private readonly settings: Pick<
      KpmSettings,
      'service' | 'instance' | 'kafka' | 'labels' | 'watcher' | 'kubeconfig'
    >,
    @Inject(EventProducer) private readonly producer: EventProducer,
    @Inject(Readiness) private readonly readiness: Readiness,
    @Inject(Registry) registry: Registry,
    @Inject(KAFKA_CLIENT) private readonly kafka: KafkaClient,
  ) {
    this.metrics = new WatcherMetrics(registry);
  }

  onApplicationBootstrap(): void {
    const deadlineSeconds = this.settings.watcher.watchFailureDeadlineSeconds;
    this.readiness.expect(WATCH_PART, deadlineSeconds > 0 ? deadlineSeconds * 1000 : undefined);
    const labels = new KpmLabels(this.settings.labels.domain);
    const outside = { readiness: this.readiness, metrics: this.metrics, logger: this.logger };
    const watcher = new Watcher(this.ports(labels), this.settings.watcher, labels, outside);
    this.running = watcher.run(this.stopper.signal);
  }

  /** Stops before the Kafka producer disconnects (that happens at application shutdown). */
  async onModuleDestroy(): Promise<void> {
    this.stopper.abort();
    await this.running;
  }

  private ports(labels: KpmLabels): WatcherPorts {
    const { watcher, kafka, service, instance, labels: labelConfig } = this.settings;
    const apis = createKubeApis(this.settings.kubeconfig, watcher.requestTimeoutSeconds * 1000);
    const backoff = {
      initialMs: watcher.retryInitialMs,
      maxMs: watcher.watcherRetrySleepSeconds * 1000,
    };
    const topic = topicName('terminations', kafka.topicPrefix);
    const source = eventSource(service, instance);
    return {
      leadership: new LeaseElector(apis.coordination, {
        namespace: watcher.leaseNamespace,
        name: watcher.leaseName ?? `kpm-watcher.${labelConfig.domain}`,
        identity: instance,
        leaseDurationSeconds: watcher.leaseDurationSeconds,
        renewDeadlineSeconds: watcher.leaseRenewDeadlineSeconds,
        retryPeriodSeconds: watcher.leaseRetryPeriodSeconds,
        labels: { [labels.creator]: 'kpm' },
        logger: this.logger,
      }),
      podStream: () =>
        new PodWatchStream(apis.core, apis.watch, {
          labelSelector: labels.creatorSelector(),
          pageSize: watcher.listPageSize,
          inactivityMs: watcher.watchInactivitySeconds * 1000,
          watchTimeoutSeconds: watcher.watchTimeoutSeconds,
          reconcileEveryMs: watcher.reconcilePeriodSeconds * 1000,
          backoff,
          logger: this.logger,
        }),
      releaseFinalizer: (pod, term) =>
        new PodGateway(apis.core, labels, { signal: term, backoff }).removeFinalizer(
          pod,
          labels.terminationFinalizer,
        ),
      publish: (batch) =>
        this.producer.send(
          topic,
          batch.map((termination) => terminationRecord(termination, source)),
        ),
      runningPods: (term) =>
        readRunningPods(this.kafka, {
          topicPrefix: kafka.topicPrefix,
          partitions: kafka.partitions,
          label: `${kafka.topicPrefix}-watcher-${instance}-sweep`,
          timeoutMs: watcher.tableSweepTimeoutSeconds * 1000,
          signal: term,
        }),
      lostNodes: async () => lostNodes((await apis.core.listNode()).items),
      clock: systemClock,
    };
  }
}
