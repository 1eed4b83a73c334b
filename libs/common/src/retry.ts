/**
 * The one retry loop: run the work; when it fails with something that may succeed later, wait per
 * the backoff (full jitter, backoff.ts) and run it again, until it succeeds or there is a reason
 * to give up — the failure is not retryable, the attempts or the deadline are used up, or the
 * signal aborted — then the last failure is thrown.
 *
 * Each backoff kpm uses is named in `BACKOFF`, so the numbers are read and tuned in one table.
 */
import { backoffDelay, type BackoffPolicy } from './backoff';
import { systemClock, type Clock } from './clock';

export const BACKOFF = {
  /** A Kubernetes API call that failed with 429, a 5xx or a network error. */
  kubeCall: { initialMs: 100, maxMs: 5_000 },
  /** Listing again after a wait's watch broke. */
  kubeWait: { initialMs: 100, maxMs: 2_000 },
  /** A command handler that failed, before its record is dead-lettered. */
  recordHandler: { initialMs: 250, maxMs: 30_000 },
  /** Restoring a state partition again (fenced, a history read timed out). */
  partitionRestore: { initialMs: 500, maxMs: 15_000 },
  /** The state view following its topics again. */
  stateView: { initialMs: 250, maxMs: 10_000 },
  /** Topics just created, waiting for their leaders. */
  topicLeaders: { initialMs: 50, maxMs: 1_000 },
  /** ACLs just created, until the broker's authorizer enforces them. */
  aclsEnforced: { initialMs: 50, maxMs: 1_000 },
} as const satisfies Record<string, BackoffPolicy>;

export interface RetryOptions {
  backoff: BackoffPolicy;
  /** At most this many attempts (default: no bound). */
  attempts?: number;
  /** No wait that would end later than this many ms after the first attempt. */
  deadlineMs?: number;
  /** Whether a failure may succeed later (default: every failure). */
  retryable?: (error: unknown) => boolean;
  /** Told of each failure that will be retried, before the wait (logs, metrics, clean-up). */
  onRetry?: (error: unknown, attempt: number) => void | Promise<void>;
  /** Aborting ends the waiting, and the retrying: the last failure is thrown. */
  signal?: AbortSignal;
  clock?: Clock;
  /** The jitter's draw in [0, 1) (default Math.random). */
  random?: () => number;
}

/** `work(attempt)` until it succeeds (attempts count from 1); see the file's header. */
export async function retry<T>(
  work: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const clock = options.clock ?? systemClock;
  const deadline = clock.now() + (options.deadlineMs ?? Infinity);
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      const wait = backoffDelay(attempt, options.backoff, options.random);
      const giveUp =
        !(options.retryable?.(error) ?? true) ||
        attempt >= (options.attempts ?? Infinity) ||
        clock.now() + wait > deadline ||
        options.signal?.aborted === true;
      if (giveUp) throw error;
      await options.onRetry?.(error, attempt);
      await clock.sleep(wait, options.signal);
      if (options.signal?.aborted) throw error;
    }
  }
}
