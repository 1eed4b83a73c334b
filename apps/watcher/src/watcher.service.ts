import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { Registry } from 'prom-client';
import { topicName } from '@kpm/contracts';
import { KpmSettings } from '@kpm/config';
import { EventProducer, type KafkaClient } from '@kpm/kafka';
import {
  createKubeApis,
  KpmLabels,
  LeaseElector,
  PodGateway,
  PodWatchStream,
  type KubeApis,
} from '@kpm/kube';
import { KAFKA_CLIENT, Readiness } from '@kpm/service-kit';
import { readRunningPods } from './process-table-sweep';
import { terminationRecord } from './termination';
import { TerminationTracker } from './termination-tracker';
import { TerminationWatch } from './termination-watch';
import { WatcherMetrics } from './watcher-metrics';

const WATCH_PART = 'pod-watch';

/**
 * Runs the watcher: campaigns for the Lease and, while leading, turns pod terminations into
 * `kpm.terminations` records. A standby replica is ready (it is healthy and waiting).
 */
@Injectable()
export class WatcherService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Watcher');
  private readonly stopper = new AbortController();
  private readonly metrics: WatcherMetrics;
  private running?: Promise<void>;
  /** Kept across terms while this replica leads on without anyone else in between. */
  private tracker?: TerminationTracker;

  // Explicit tokens: under tsx (esbuild) there is no emitted decorator metadata to infer them.
  constructor(
    @Inject(KpmSettings) private readonly settings: KpmSettings,
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
    const apis = createKubeApis(
      this.settings.kubeconfig,
      this.settings.watcher.requestTimeoutSeconds * 1000,
    );
    const { watcher, labels: labelConfig, instance } = this.settings;
    const labels = new KpmLabels(labelConfig.domain);
    const elector = new LeaseElector(apis.coordination, {
      namespace: watcher.leaseNamespace,
      name: watcher.leaseName ?? `kpm-watcher.${labelConfig.domain}`,
      identity: instance,
      leaseDurationSeconds: watcher.leaseDurationSeconds,
      renewDeadlineSeconds: watcher.leaseRenewDeadlineSeconds,
      retryPeriodSeconds: watcher.leaseRetryPeriodSeconds,
      labels: { [labels.creator]: 'kpm' },
      logger: this.logger,
    });
    this.running = elector.run(
      (term, { continued }) => this.lead(apis, labels, term, continued),
      this.stopper.signal,
      {
        leaderChanged: (holder, self) => {
          this.metrics.leader.set(self ? 1 : 0);
          if (!self) this.readiness.set(WATCH_PART, true, `standby; leader: ${holder ?? 'none'}`);
          this.logger.log(`leader is ${holder ?? 'nobody'}${self ? ' (this replica)' : ''}`);
        },
      },
    );
  }

  /** Stops before the Kafka producer disconnects (that happens at application shutdown). */
  async onModuleDestroy(): Promise<void> {
    this.stopper.abort();
    await this.running;
  }

  private async lead(
    apis: KubeApis,
    labels: KpmLabels,
    term: AbortSignal,
    continued: boolean,
  ): Promise<void> {
    const { watcher, kafka, service, instance } = this.settings;
    this.readiness.set(WATCH_PART, false, 'leading; listing pods');
    const tracker = await this.memoryOfTerm(labels, term, continued);
    const backoff = {
      initialMs: watcher.retryInitialMs,
      maxMs: watcher.watcherRetrySleepSeconds * 1000,
    };
    const gateway = new PodGateway(apis.core, labels, { signal: term, backoff });
    const stream = new PodWatchStream(apis.core, apis.watch, {
      labelSelector: labels.creatorSelector(),
      pageSize: watcher.listPageSize,
      inactivityMs: watcher.watchInactivitySeconds * 1000,
      watchTimeoutSeconds: watcher.watchTimeoutSeconds,
      reconcileEveryMs: watcher.reconcilePeriodSeconds * 1000,
      backoff,
      logger: this.logger,
    });
    const topic = topicName('terminations', kafka.topicPrefix);
    const source = `/kpm/${service}/${instance}`;
    this.metrics.leader.set(1);
    try {
      await new TerminationWatch({
        tracker,
        stream,
        publish: (batch) =>
          this.producer.send(
            topic,
            batch.map((termination) => terminationRecord(termination, source)),
          ),
        releaseFinalizer: (pod) => gateway.removeFinalizer(pod, labels.terminationFinalizer),
        batchSize: watcher.publishBatchSize,
        finalizerConcurrency: watcher.finalizerConcurrency,
        backoff,
        metrics: this.metrics,
        established: (ready, detail) => this.readiness.set(WATCH_PART, ready, detail),
        logger: this.logger,
      }).run(term);
    } finally {
      this.metrics.leader.set(0);
      this.readiness.set(WATCH_PART, !this.stopper.signal.aborted, 'not leading');
    }
  }

  /**
   * What the term knows of the pods: kept when this replica led just before, else fresh and
   * seeded from the process table.
   */
  private async memoryOfTerm(
    labels: KpmLabels,
    term: AbortSignal,
    continued: boolean,
  ): Promise<TerminationTracker> {
    if (continued && this.tracker) return this.tracker;
    const { watcher } = this.settings;
    this.tracker = new TerminationTracker(
      labels,
      new Set(watcher.fatalWaitingReasons),
      () => new Date(),
      watcher.imagePullGraceSeconds,
    );
    await this.sweepProcessTable(this.tracker, term);
    return this.tracker;
  }

  /**
   * The pods the process table shows RUNNING become expected in the first list. Without the table
   * (broker unreachable) the term goes on as before: only pods it lists can be followed.
   */
  private async sweepProcessTable(tracker: TerminationTracker, term: AbortSignal): Promise<void> {
    const { kafka, watcher, instance } = this.settings;
    try {
      const running = await readRunningPods(this.kafka, {
        topicPrefix: kafka.topicPrefix,
        partitions: kafka.partitions,
        label: `kpm-watcher-${instance}-sweep`,
        timeoutMs: watcher.tableSweepTimeoutSeconds * 1000,
        signal: term,
      });
      tracker.expect(running);
      this.logger.log(`process table shows ${running.length} pods RUNNING`);
    } catch (error) {
      if (!term.aborted) this.logger.warn(`process table not read: ${String(error)}`);
    }
  }
}
