/**
 * The watcher's flow: campaign for the Lease; while this replica leads, one term —
 *   1. the memory of pods: kept when this replica led just before (nobody else led between),
 *      else fresh and seeded with the pods the process table shows RUNNING;
 *   2. pods in, terminations out (TerminationWatch: stream → tracker → publisher → releaser),
 *      with the nodes the cluster lost asked now and then, until the term ends.
 * The outside (the Lease, the pod stream, the finalizer patch, Kafka, the clock) comes through
 * `WatcherPorts`: the Kubernetes and Kafka ones from watcher.service.ts, fakes in the tests.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { errorText, logEvent, type BackoffPolicy, type Clock, type LogEvent } from '@kpm/common';
import type { WatcherConfig } from '@kpm/config';
import type { KpmLabels, LeaseElector, NodeLoss, PodStreamHandler } from '@kpm/kube';
import type { Termination } from './termination';
import { TerminationTracker, type ExpectedPod } from './termination-tracker';
import { TerminationWatch } from './termination-watch';
import type { WatcherMetrics } from './watcher-metrics';

/** The readiness part the watcher reports. */
export const WATCH_PART = 'pod-watch';

export interface WatcherPorts {
  /** The Lease campaign: runs `lead` for each term this replica wins. */
  leadership: Pick<LeaseElector, 'run'>;
  /** A pod stream (list, then watch) for one term. */
  podStream(term: AbortSignal): {
    run(handler: PodStreamHandler, signal: AbortSignal): Promise<void>;
  };
  /** Removes the termination-record finalizer (guarded patch). */
  releaseFinalizer(pod: V1Pod, term: AbortSignal): Promise<unknown>;
  /** Writes terminations to `kpm.terminations`; resolves on the broker's acknowledgement. */
  publish(batch: readonly Termination[]): Promise<void>;
  /** The pods the process table shows RUNNING. */
  runningPods(term: AbortSignal): Promise<ExpectedPod[]>;
  /** The nodes the cluster has lost now (Ready Unknown), by name. */
  lostNodes(term: AbortSignal): Promise<Map<string, NodeLoss>>;
  clock: Clock;
}

interface WatcherOutside {
  readiness: { set(part: string, ready: boolean, detail: string): void };
  metrics: WatcherMetrics;
  logger: { log(entry: LogEvent): void; warn(entry: LogEvent): void };
}

export class Watcher {
  /** Kept across terms while this replica leads on without anyone else in between. */
  private tracker?: TerminationTracker;
  private stopping?: AbortSignal;

  constructor(
    private readonly ports: WatcherPorts,
    private readonly settings: WatcherConfig,
    private readonly labels: KpmLabels,
    private readonly outside: WatcherOutside,
  ) {}

  /** Campaigns and leads until `signal` aborts. */
  run(signal: AbortSignal): Promise<void> {
    const { readiness, metrics, logger } = this.outside;
    this.stopping = signal;
    return this.ports.leadership.run((term, { continued }) => this.lead(term, continued), signal, {
      leaderChanged: (holder, self) => {
        metrics.leader.set(self ? 1 : 0);
        if (!self) readiness.set(WATCH_PART, true, `standby; leader: ${holder ?? 'none'}`);
        logger.log(logEvent('leader.changed', { holder: holder ?? null, self }));
      },
    });
  }

  /** One leadership term: its memory, then pods in and terminations out until it ends. */
  private async lead(term: AbortSignal, continued: boolean): Promise<void> {
    const { readiness, metrics, logger } = this.outside;
    readiness.set(WATCH_PART, false, 'leading; listing pods');
    const tracker = await this.memoryOfTerm(term, continued);
    metrics.leader.set(1);
    try {
      await new TerminationWatch({
        tracker,
        stream: this.ports.podStream(term),
        publish: (batch) => this.ports.publish(batch),
        releaseFinalizer: (pod) => this.ports.releaseFinalizer(pod, term),
        lostNodes: () => this.ports.lostNodes(term),
        nodeCheckMs: this.settings.nodeCheckSeconds * 1000,
        batchSize: this.settings.publishBatchSize,
        finalizerConcurrency: this.settings.finalizerConcurrency,
        backoff: this.backoff,
        clock: this.ports.clock,
        metrics,
        established: (ready, detail) => readiness.set(WATCH_PART, ready, detail),
        logger,
      }).run(term);
    } finally {
      metrics.leader.set(0);
      // A replica that lost the term stands by, ready; one that stops is not.
      readiness.set(WATCH_PART, !this.stopping?.aborted, 'not leading');
    }
  }

  /** The memory of the term: this replica's own when it led just before, else a fresh one. */
  private async memoryOfTerm(term: AbortSignal, continued: boolean): Promise<TerminationTracker> {
    if (continued && this.tracker) return this.tracker;
    const { fatalWaitingReasons, imagePullGraceSeconds } = this.settings;
    const { clock } = this.ports;
    this.tracker = new TerminationTracker(
      this.labels,
      new Set(fatalWaitingReasons),
      () => new Date(clock.now()),
      imagePullGraceSeconds,
    );
    await this.sweepProcessTable(this.tracker, term);
    return this.tracker;
  }

  /**
   * The pods the process table shows RUNNING become expected in the first list. Without the table
   * (broker unreachable) the term goes on as before: only pods it lists can be followed.
   */
  private async sweepProcessTable(tracker: TerminationTracker, term: AbortSignal): Promise<void> {
    const { logger } = this.outside;
    try {
      const running = await this.ports.runningPods(term);
      tracker.expect(running);
      logger.log(logEvent('process_table.read', { running: running.length }));
    } catch (error) {
      if (!term.aborted)
        logger.warn(logEvent('process_table.read_failed', { error: errorText(error) }));
    }
  }

  private get backoff(): BackoffPolicy {
    const { retryInitialMs, watcherRetrySleepSeconds } = this.settings;
    return { initialMs: retryInitialMs, maxMs: watcherRetrySleepSeconds * 1000 };
  }
}
