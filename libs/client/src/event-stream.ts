/**
 * An async iterator over kpm events, fed by a subscription. It buffers a bounded number of events
 * and then holds the subscription back (the transport awaits `push`), so a slow reader never
 * loses events and never grows memory without bound.
 */
import type { KpmEvent } from '@kpm/contracts';

const HIGH_WATER_MARK = 1000;

export class EventStream implements AsyncIterableIterator<KpmEvent> {
  private readonly buffer: KpmEvent[] = [];
  private readonly readers: Array<{
    resolve(result: IteratorResult<KpmEvent>): void;
    reject(error: Error): void;
  }> = [];
  private readonly roomWaiters: Array<() => void> = [];
  private error?: Error;
  private ended = false;
  private onClose: () => Promise<void> = () => Promise.resolve();
  private readonly started: Promise<void>;
  private markStarted!: () => void;

  constructor(private readonly highWaterMark = HIGH_WATER_MARK) {
    this.started = new Promise((resolve) => (this.markStarted = resolve));
  }

  /** Resolves once the stream's start position is fixed: events after this are all delivered. */
  async ready(): Promise<void> {
    await this.started;
    if (this.error) throw this.error;
  }

  /** Called by the client once subscribed; `close` ends the subscription. */
  attach(close: () => Promise<void>): void {
    this.markStarted();
    if (this.ended) {
      close().catch(() => undefined); // closed before the subscription was up
      return;
    }
    this.onClose = close;
  }

  /** Resolves when the reader has room for more. */
  async push(event: KpmEvent): Promise<void> {
    if (this.ended) return;
    const reader = this.readers.shift();
    if (reader) return reader.resolve({ value: event, done: false });
    this.buffer.push(event);
    while (this.buffer.length >= this.highWaterMark && !this.ended) {
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    }
  }

  /** The subscription failed: readers see the error after the events already buffered. */
  fail(error: Error): void {
    if (this.ended) return;
    this.error = error;
    this.markStarted();
    for (const reader of this.readers.splice(0)) reader.reject(error);
  }

  next(): Promise<IteratorResult<KpmEvent>> {
    const value = this.buffer.shift();
    if (value !== undefined) {
      this.roomWaiters.shift()?.();
      return Promise.resolve({ value, done: false });
    }
    if (this.error) return Promise.reject(this.error);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => this.readers.push({ resolve, reject }));
  }

  /** Ends the stream and its subscription (a `break` out of `for await` calls this). */
  async return(): Promise<IteratorResult<KpmEvent>> {
    await this.close();
    return { value: undefined, done: true };
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.markStarted();
    for (const reader of this.readers.splice(0)) reader.resolve({ value: undefined, done: true });
    for (const wake of this.roomWaiters.splice(0)) wake();
    await this.onClose();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
