/**
 * Thrown by a `waitFor` probe when waiting further is pointless (the process died): `waitFor`
 * rethrows it at once instead of polling until the deadline.
 */
export class WaitAborted extends Error {}

/** Polls `probe` until it returns true or the deadline passes; used for readiness of external processes. */
export async function waitFor(
  what: string,
  probe: () => Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number; onTimeout?: () => string },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      if (await probe()) return;
    } catch (error) {
      if (error instanceof WaitAborted) throw error;
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
  const detail = lastError instanceof Error ? `: ${lastError.message}` : '';
  const extra = options.onTimeout ? `\n${options.onTimeout()}` : '';
  throw new Error(`kpm: ${what} not ready after ${options.timeoutMs} ms${detail}${extra}`);
}
