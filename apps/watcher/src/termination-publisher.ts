import { retry, type BackoffPolicy, type Clock } from '@kpm/common';
import type { Termination } from './termination';

export interface PublisherOptions {
  batchSize: number;
  backoff: BackoffPolicy;
  clock?: Clock;
}

export interface PublisherListener {
  /** Kafka acknowledged the batch (acks from all in-sync replicas). */
  published(batch: readonly Termination[]): void;
  failed?(error: unknown, attempt: number): void;
}

/**
 * Publishes terminations in batches, one Kafka request at a time: while one batch is in flight
 * the next accumulates, so 1000 pods ending at once go out in a few requests. A failed batch is
 * retried with backoff until it is acknowledged or the publisher stops (then the pods still hold
 * their finalizers, and the next watcher finds them again).
 */
export class TerminationPublisher {
  private readonly queue: Termination[] = [];
  private readonly stopper = new AbortController();
  private draining?: Promise<void>;

  constructor(
    private readonly send: (batch: readonly Termination[]) => Promise<void>,
    private readonly options: PublisherOptions,
    private readonly listener: PublisherListener,
  ) {}

  get backlog(): number {
    return this.queue.length;
  }

  enqueue(termination: Termination): void {
    if (this.stopper.signal.aborted) return;
    this.queue.push(termination);
    this.kick();
  }

  /** Stops retrying, waits for the request in flight, drops the rest. */
  async stop(): Promise<void> {
    this.stopper.abort();
    await this.draining;
    this.queue.length = 0;
  }

  private kick(): void {
    if (this.draining) return;
    // Start after the current I/O callback, so every event of one watch chunk joins the batch.
    this.draining = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.drain())
      .finally(() => {
        this.draining = undefined;
        if (this.queue.length > 0 && !this.stopper.signal.aborted) this.kick();
      });
  }

  private async drain(): Promise<void> {
    const { signal } = this.stopper;
    const { batchSize, backoff, clock } = this.options;
    while (this.queue.length > 0 && !signal.aborted) {
      const batch = this.queue.splice(0, batchSize);
      const sent = await retry(() => this.send(batch), {
        backoff,
        signal,
        clock,
        onRetry: (error, attempt) => this.listener.failed?.(error, attempt),
      }).then(
        () => true,
        () => false, // stopped: the pods keep their finalizers, the next watcher finds them
      );
      if (!sent) return;
      this.listener.published(batch);
    }
  }
}
