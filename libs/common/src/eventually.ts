/**
 * The one way kpm's tests and benchmarks wait for something to happen (never a bare sleep): poll
 * `check` until it holds — it neither throws (an assertion) nor returns `false` — and resolve
 * with what it returned. Past `timeoutMs` it fails, naming what it waited for and the last
 * failure (an assertion's own message, say). A check for a value returns it, or `false`:
 * `eventually(() => events.find(isMine) ?? false)`.
 */
import { errorText } from './error-text';

export interface EventuallyOptions {
  /** What is waited for, for the failure's message. */
  what?: string;
  /** Default 30 s. */
  timeoutMs?: number;
  /** Between checks; default 100 ms. */
  everyMs?: number;
  /** Asked before each check: an error to fail with at once (the process waited on exited). */
  failFast?: () => Error | undefined;
}

export async function eventually<T>(
  check: () => T | Promise<T>,
  { what = 'the condition', timeoutMs = 30_000, everyMs = 100, failFast }: EventuallyOptions = {},
): Promise<Exclude<T, false>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const fatal = failFast?.();
    if (fatal) throw fatal;
    try {
      const value = await check();
      if (value !== false) return value as Exclude<T, false>;
      last = undefined;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) {
      const why = last === undefined ? '' : `: ${errorText(last)}`;
      throw new Error(`${what} not reached within ${timeoutMs} ms${why}`, { cause: last });
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
