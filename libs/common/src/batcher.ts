/**
 * Items sent in batches, one send in flight at a time: what arrives while a batch is on its way
 * waits and goes in the next one, so a burst costs a few round trips and an idle sender sends at
 * once — after the current turn of the event loop, so that what one event brings shares a batch.
 * Batches keep the order items came in, at most `maxItems` items and `maxBytes` bytes each (an
 * item larger than that goes alone).
 *
 * kpm's three batchers are this one: the boot-worker's facts, the watcher's terminations, the
 * client's commands.
 */
export interface BatcherOptions<T> {
  /** Sends one batch; resolves on the receiver's acknowledgement. */
  send(batch: T[]): Promise<void>;
  maxItems?: number;
  maxBytes?: number;
  /** An item's size toward `maxBytes`. */
  bytesOf?: (item: T) => number;
  /** Told of each batch acknowledged. */
  onSent?: (batch: T[]) => void;
}

interface Entry<T> {
  item: T;
  bytes: number;
  resolve(): void;
  reject(error: unknown): void;
}

export class Batcher<T> {
  private readonly waiting: Entry<T>[] = [];
  private draining?: Promise<void>;
  private stopped = false;
  /** The first send that failed, if one did. */
  failure?: Error;

  constructor(private readonly options: BatcherOptions<T>) {}

  /** Items waiting for a batch. */
  get backlog(): number {
    return this.waiting.length;
  }

  /** Queues the item; a failure of its batch is kept in `failure` (see `flushed`). */
  add(item: T): void {
    void this.send(item).catch(() => undefined);
  }

  /** Queues the item; resolves once its batch was acknowledged, rejects if its send failed. */
  send(item: T): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('the batcher is stopped'));
    return new Promise((resolve, reject) => {
      const bytes = this.options.bytesOf?.(item) ?? 0;
      this.waiting.push({ item, bytes, resolve, reject });
      this.kick();
    });
  }

  /** Resolves once everything added so far was sent; throws the first failed send, if any. */
  async flushed(): Promise<void> {
    while (this.draining) await this.draining;
    if (this.failure !== undefined) throw this.failure;
  }

  /** Drops what waits (rejecting it) and waits for the batch in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const entry of this.waiting.splice(0)) entry.reject(new Error('the batcher is stopped'));
    while (this.draining) await this.draining;
  }

  private kick(): void {
    if (this.draining) return;
    this.draining = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.drain())
      .finally(() => {
        this.draining = undefined;
        if (this.waiting.length > 0 && !this.stopped) this.kick();
      });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0 && !this.stopped) {
      const entries = this.nextBatch();
      const items = entries.map((e) => e.item);
      try {
        await this.options.send(items);
      } catch (error) {
        this.failure ??= error instanceof Error ? error : new Error(String(error));
        for (const entry of entries) entry.reject(error);
        continue;
      }
      for (const entry of entries) entry.resolve();
      this.options.onSent?.(items);
    }
  }

  /** The head of the queue within the bounds (always at least one item). */
  private nextBatch(): Entry<T>[] {
    const { maxItems = Infinity, maxBytes = Infinity } = this.options;
    let bytes = 0;
    let count = 0;
    while (count < this.waiting.length && count < maxItems) {
      bytes += this.waiting[count].bytes;
      if (count > 0 && bytes > maxBytes) break;
      count++;
    }
    return this.waiting.splice(0, count);
  }
}
