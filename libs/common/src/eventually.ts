/**
 * The one way kpm waits for something to happen (never a bare sleep): poll `check` until it
 * holds — it neither throws (an assertion) nor returns `false` — and resolve with what it
 * returned. Past `timeoutMs` it fails, naming what it waited for and the last failure (an
 * assertion's own message, say). A check for a value returns it, or `false`:
 * `eventually(() => events.find(isMine) ?? false)`. Tests, benchmarks and the local stack's
 * readiness waits (`waitFor` in @kpm/stack) all poll through it.
 */
import { errorText } from './error-text';

/**
 * Thrown by a check when waiting further is pointless (the process waited on exited):
 * `eventually` rethrows it at once instead of polling until the deadline.
 */
export class WaitAborted extends Error {}

export interface EventuallyOptions {
  /** What is waited for, for the failure's message. */
  what?: string;
  /** Default 30 s; with `progress`, this long without progress. */
  timeoutMs?: number;
  /** Between checks; default 100 ms. */
  everyMs?: number;
  /** Asked before each check: an error to fail with at once (the process waited on exited). */
  failFast?: () => Error | undefined;
  /**
   * A mark of the awaited process's advance (e.g. its log's size): while it changes, the wait
   * goes on — a broker recovering thousands of partitions is slow, not stuck.
   */
  progress?: () => number;
  /** More for the failure's message, asked when the wait gives up (a daemon's log tail). */
  onTimeout?: () => string;
}

export async function eventually<T>(
  check: () => T | Promise<T>,
  options: EventuallyOptions = {},
): Promise<Exclude<T, false>> {
  const { what = 'the condition', timeoutMs = 30_000, everyMs = 100 } = options;
  const { failFast, progress, onTimeout } = options;
  let deadline = Date.now() + timeoutMs;
  let mark = progress?.();
  let last: unknown;
  for (;;) {
    const fatal = failFast?.();
    if (fatal) throw fatal;
    try {
      const value = await check();
      if (value !== false) return value as Exclude<T, false>;
      last = undefined;
    } catch (error) {
      if (error instanceof WaitAborted) throw error;
      last = error;
    }
    const now = progress?.();
    if (now !== mark) {
      mark = now;
      deadline = Date.now() + timeoutMs;
    }
    if (Date.now() >= deadline) {
      const span = progress ? `after no progress for ${timeoutMs} ms` : `within ${timeoutMs} ms`;
      const why = last === undefined ? '' : `: ${errorText(last)}`;
      const extra = onTimeout ? `\n${onTimeout()}` : '';
      throw new Error(`${what} not reached ${span}${why}${extra}`, { cause: last });
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
