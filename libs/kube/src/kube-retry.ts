import { backoffDelay, delay, type BackoffPolicy } from '@kpm/common';
import { classifyKubeError, KubeCallFailed } from './kube-errors';

export interface KubeRetryOptions {
  /** Give up retrying at this many ms after the first attempt. */
  deadlineMs?: number;
  backoff?: BackoffPolicy;
  signal?: AbortSignal;
}

/** Retries 429/5xx/network failures with backoff and jitter within a deadline; others fail at once. */
export async function withKubeRetry<T>(
  call: () => Promise<T>,
  options: KubeRetryOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.deadlineMs ?? 30_000);
  const backoff = options.backoff ?? { initialMs: 100, maxMs: 5_000 };
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const failure = classifyKubeError(error);
      const wait = backoffDelay(attempt, backoff);
      if (failure.kind !== 'retryable' || Date.now() + wait > deadline || options.signal?.aborted) {
        throw new KubeCallFailed(failure, attempt);
      }
      await delay(wait, options.signal);
    }
  }
}
