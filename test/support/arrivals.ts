/**
 * Records as they arrive, and waits for the first that matches: what the Kafka topic probe and
 * the DUNE feeds reader share. Event-driven — each arrival wakes the waiters — with a deadline
 * whose error lists what was seen.
 */
export class Arrivals<T> {
  readonly records: T[] = [];
  private readonly waiters = new Set<() => void>();

  add(record: T): void {
    this.records.push(record);
    for (const wake of this.waiters) wake();
  }

  /**
   * Resolves with the first record matching `predicate`; after `timeoutMs` fails with
   * `failure(seen)`, `seen` being every record so far.
   */
  waitFor(
    predicate: (record: T) => boolean,
    timeoutMs: number,
    failure: (seen: readonly T[]) => string,
  ): Promise<T> {
    const found = this.records.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const wake = () => {
        const match = this.records.find(predicate);
        if (!match) return;
        cleanup();
        resolve(match);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(failure(this.records)));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
      };
      this.waiters.add(wake);
    });
  }
}
