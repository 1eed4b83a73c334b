import { systemClock, type Clock } from '@kpm/common';
import type { EncodedRecord } from '@kpm/contracts';

/** Where facts go: `kpm.process-events`, acknowledged by the broker before `send` resolves. */
export interface FactSink {
  send(records: readonly EncodedRecord[]): Promise<void>;
}

export interface FactBatcherOptions {
  lingerMs: number;
  maxBatch: number;
  /** Told after each batch the broker acknowledged. */
  onFlush?: () => void;
  clock?: Clock;
}

/**
 * Streams the facts of a long command in batches: one broker round trip per batch rather than
 * per process, yet facts appear while the command runs. `close` sends the rest and reports a
 * failed send, so the command fails (and is redelivered) instead of losing facts.
 */
export class FactBatcher {
  private buffer: EncodedRecord[] = [];
  private sending: Promise<void> = Promise.resolve();
  private failure?: Error;
  private readonly closing = new AbortController();
  private readonly lingering: Promise<void>;

  constructor(
    private readonly sink: FactSink,
    private readonly options: FactBatcherOptions,
  ) {
    this.lingering = this.linger(options.clock ?? systemClock);
  }

  add(record: EncodedRecord): void {
    this.buffer.push(record);
    if (this.buffer.length >= this.options.maxBatch) this.flush();
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.lingering;
    this.flush();
    await this.sending;
    if (this.failure !== undefined) throw this.failure;
  }

  /** What waited `lingerMs` goes out without waiting for a full batch. */
  private async linger(clock: Clock): Promise<void> {
    const { signal } = this.closing;
    while (!signal.aborted) {
      await clock.sleep(this.options.lingerMs, signal);
      this.flush();
    }
  }

  private flush(): void {
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    // Chained: batches reach the broker in the order they were added.
    this.sending = this.sending.then(async () => {
      if (this.failure !== undefined) return;
      try {
        await this.sink.send(batch);
        this.options.onFlush?.();
      } catch (error) {
        this.failure = error instanceof Error ? error : new Error(String(error));
      }
    });
  }
}
