import { statSync } from 'node:fs';
import { eventually, WaitAborted, type EventuallyOptions } from '@kpm/common';

export { WaitAborted };

export interface WaitOptions extends Pick<EventuallyOptions, 'progress' | 'onTimeout'> {
  /** Give up after this long; with `progress`, this long without progress. */
  timeoutMs: number;
  /** Between probes; default 250 ms. */
  intervalMs?: number;
}

/**
 * The stack's readiness wait on an external process: `eventually` with a probe that answers
 * true once ready (a probe's WaitAborted ends the wait at once), failing as
 * "kpm: <what> ready not reached …".
 */
export async function waitFor(
  what: string,
  probe: () => Promise<boolean>,
  { timeoutMs, intervalMs = 250, progress, onTimeout }: WaitOptions,
): Promise<void> {
  await eventually(async () => (await probe()) || false, {
    what: `kpm: ${what} ready`,
    timeoutMs,
    everyMs: intervalMs,
    progress,
    onTimeout,
  });
}

/** A file's size in bytes, 0 while it does not exist: a daemon's log as its `progress`. */
export function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
