/**
 * Time as kpm's orchestrators read it. Production code takes a `Clock` (the `systemClock` unless
 * told otherwise), so a table test runs a minute of grace periods and readiness waits in
 * milliseconds on a `VirtualClock` instead of fake timers or sleeps.
 */
import { delay } from './backoff';

export interface Clock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * A periodic task's wait: resolves after `ms`, or at once when `signal` aborts. Unlike `sleep`
   * it does not drive a virtual clock: a poll that runs for ever lets time stand still.
   */
  tick(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, signal),
  tick: (ms, signal) => delay(ms, signal),
};

interface Entry {
  at: number;
  seq: number;
  /** A sleep: someone waits for it, so time moves on to it. A timer only rides along. */
  drives: boolean;
  fire: () => void;
}

/**
 * A clock for tests that jumps: whenever the code under test has settled (nothing left to run but
 * sleeps), time moves to the earliest sleep or scheduled event and fires it. Everything is
 * deterministic and instant, as long as the code waits only on this clock and on promises.
 *
 * `schedule` adds events that happen at a time (a pod that stops 2 s after its SIGTERM) without
 * moving time by themselves: once nobody sleeps, the clock stands still.
 */
export class VirtualClock implements Clock {
  private time: number;
  private seq = 0;
  private entries: Entry[] = [];
  private pumping = false;

  constructor(start = Date.parse('2025-01-01T00:00:00Z')) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.wait(ms, true, signal);
  }

  tick(ms: number, signal?: AbortSignal): Promise<void> {
    return this.wait(ms, false, signal);
  }

  private wait(ms: number, drives: boolean, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const entry = this.add(ms, drives, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      const onAbort = () => {
        this.remove(entry);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Runs `action` once `ms` have passed; the returned function cancels it. */
  schedule(ms: number, action: () => void): () => void {
    const entry = this.add(ms, false, action);
    return () => this.remove(entry);
  }

  /** Milliseconds since the clock started counting from `start`: for tables of what happened when. */
  since(start: number): number {
    return this.time - start;
  }

  private add(ms: number, drives: boolean, fire: () => void): Entry {
    const entry = { at: this.time + Math.max(0, ms), seq: this.seq++, drives, fire };
    this.entries.push(entry);
    this.entries.sort((a, b) => a.at - b.at || a.seq - b.seq);
    this.pump();
    return entry;
  }

  private remove(entry: Entry): void {
    this.entries = this.entries.filter((e) => e !== entry);
  }

  /**
   * Two macrotask turns let every promise chain (and one level of `setImmediate`) in the code
   * under test settle before time moves on.
   */
  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    setImmediate(() =>
      setImmediate(() => {
        this.pumping = false;
        if (!this.entries.some((e) => e.drives)) return;
        const next = this.entries.shift()!;
        this.time = Math.max(this.time, next.at);
        next.fire();
        if (this.entries.some((e) => e.drives)) this.pump();
      }),
    );
  }
}
