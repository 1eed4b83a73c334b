import { BACKOFF, retry, type BackoffPolicy } from '@kpm/common';
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
  let attempts = 0;
  try {
    return await retry(
      (attempt) => {
        attempts = attempt;
        return call();
      },
      {
        backoff: options.backoff ?? BACKOFF.kubeCall,
        deadlineMs: options.deadlineMs ?? 30_000,
        retryable: (error) => classifyKubeError(error).kind === 'retryable',
        signal: options.signal,
      },
    );
  } catch (error) {
    throw new KubeCallFailed(classifyKubeError(error), attempts);
  }
}
