import { statSync } from 'node:fs';

/**
 * Thrown by a `waitFor` probe when waiting further is pointless (the process died): `waitFor`
 * rethrows it at once instead of polling until the deadline.
 */
export class WaitAborted extends Error {}

export interface WaitOptions {
  /** Give up after this long; with `progress`, this long without progress. */
  timeoutMs: number;
  intervalMs?: number;
  onTimeout?: () => string;
  /**
   * A mark of the process's advance (e.g. its log's size). While it changes the wait goes on: a
   * broker recovering thousands of partitions after an unclean stop is slow but not stuck.
   */
  progress?: () => number;
}

/** Polls `probe` until it returns true or the deadline passes; used for readiness of external processes. */
export async function waitFor(
  what: string,
  probe: () => Promise<boolean>,
  options: WaitOptions,
): Promise<void> {
  let deadline = Date.now() + options.timeoutMs;
  let mark = options.progress?.();
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      if (await probe()) return;
    } catch (error) {
      if (error instanceof WaitAborted) throw error;
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
    const now = options.progress?.();
    if (now !== mark) {
      mark = now;
      deadline = Date.now() + options.timeoutMs;
    }
  }
  const detail = lastError instanceof Error ? `: ${lastError.message}` : '';
  const extra = options.onTimeout ? `\n${options.onTimeout()}` : '';
  const span = options.progress
    ? `no progress for ${options.timeoutMs} ms`
    : `${options.timeoutMs} ms`;
  throw new Error(`kpm: ${what} not ready after ${span}${detail}${extra}`);
}

/** A file's size in bytes, 0 while it does not exist: a daemon's log as its `progress`. */
export function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
