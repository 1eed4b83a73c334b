/**
 * Exponential backoff with full jitter (AWS architecture blog's "full jitter"): spreads retries of
 * many clients hitting the same failing broker or API server instead of synchronising them.
 */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  factor?: number;
}

const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 200, maxMs: 30_000, factor: 2 };

/** Delay before retry number `attempt` (1-based); `random` is injectable for tests. */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxMs, policy.initialMs * (policy.factor ?? 2) ** (attempt - 1));
  return Math.round(random() * ceiling);
}

/** Sleeps `ms`, waking early when `signal` aborts; used between retries, never to synchronise tests. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
