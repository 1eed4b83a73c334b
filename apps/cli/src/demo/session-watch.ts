/**
 * Follows one session's events for the demo: keeps what it saw, tells a listener as events
 * arrive, and lets a step wait for the event it needs (with a deadline, never a sleep).
 */
import type { KpmEvent } from '@kpm/contracts';
import type { EventStream } from '@kpm/client';

type Predicate = (event: KpmEvent) => boolean;

export class SessionWatch {
  readonly seen: KpmEvent[] = [];
  /** Called for every event, e.g. to print it. */
  onEvent?: (event: KpmEvent) => void;
  private readonly waiters = new Set<() => void>();
  private failure?: Error;
  private readonly reading: Promise<void>;

  constructor(private readonly stream: EventStream) {
    this.reading = this.read();
  }

  ready(): Promise<void> {
    return this.stream.ready();
  }

  /** The first event (already seen or yet to come) that matches, within `timeoutMs`. */
  waitFor(predicate: Predicate, timeoutMs: number, what: string): Promise<KpmEvent> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.seen.find(predicate);
        if (found || this.failure) {
          clearTimeout(timer);
          this.waiters.delete(check);
          if (found) resolve(found);
          else reject(this.failure!);
        }
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`${what} did not happen within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  async close(): Promise<void> {
    await this.stream.close();
    await this.reading;
  }

  private async read(): Promise<void> {
    try {
      for await (const event of this.stream) {
        this.seen.push(event);
        this.onEvent?.(event);
        for (const check of [...this.waiters]) check();
      }
    } catch (error) {
      this.failure = error as Error;
      for (const check of [...this.waiters]) check();
    }
  }
}
