import { Batcher, retry, type BackoffPolicy, type Clock } from '@kpm/common';
import { markSpan, SpanKind } from '@kpm/tracing';
import type { Termination } from './termination';

interface PublisherOptions {
  batchSize: number;
  backoff: BackoffPolicy;
  clock?: Clock;
}

interface PublisherListener {
  /** Kafka acknowledged the batch (acks from all in-sync replicas). */
  published(batch: readonly Termination[]): void;
  failed?(error: unknown, attempt: number): void;
}

/**
 * Publishes terminations in batches, one Kafka request at a time (libs/common Batcher): while one
 * batch is in flight the next accumulates, so 1000 pods ending at once go out in a few requests. A
 * failed batch is retried with backoff until it is acknowledged or the publisher stops (then the
 * pods still hold their finalizers, and the next watcher finds them again).
 */
export class TerminationPublisher {
  private readonly stopper = new AbortController();
  private readonly batcher: Batcher<Termination>;

  constructor(
    send: (batch: readonly Termination[]) => Promise<void>,
    { batchSize, backoff, clock }: PublisherOptions,
    listener: PublisherListener,
  ) {
    const { signal } = this.stopper;
    this.batcher = new Batcher({
      maxItems: batchSize,
      send: (batch) =>
        retry(() => send(batch), {
          backoff,
          signal,
          clock,
          onRetry: (error, attempt) => listener.failed?.(error, attempt),
        }),
      onSent: (batch) => {
        for (const termination of batch) markPublished(termination);
        listener.published(batch);
      },
    });
  }

  get backlog(): number {
    return this.batcher.backlog;
  }

  enqueue(termination: Termination): void {
    if (!this.stopper.signal.aborted) this.batcher.add(termination);
  }

  /** Stops retrying, waits for the request in flight, drops the rest. */
  async stop(): Promise<void> {
    this.stopper.abort();
    await this.batcher.stop();
  }
}

/** A termination, a span in the trace of the command that booted its pod: seen to acknowledged. */
function markPublished({ identity, verdict, detectedBy, observedAt }: Termination): void {
  markSpan('publish termination', {
    kind: SpanKind.PRODUCER,
    parent: identity.traceparent,
    startTime: new Date(observedAt),
    attributes: {
      'kpm.session': identity.session,
      'kpm.process': identity.name,
      'kpm.uuid': identity.uuid,
      'k8s.pod.name': identity.podName,
      'k8s.pod.uid': identity.podUid,
      'kpm.exit_code': verdict.exitCode,
      'kpm.reason': verdict.reason,
      'kpm.detected_by': detectedBy,
    },
  });
}
