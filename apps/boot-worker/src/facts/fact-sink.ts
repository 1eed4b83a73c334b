import type { EncodedRecord } from '@kpm/contracts';

/** Where facts go: `kpm.process-events`, acknowledged by the broker before `send` resolves. */
export interface FactSink {
  send(records: readonly EncodedRecord[]): Promise<void>;
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
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly sink: FactSink,
    private readonly options: { lingerMs: number; maxBatch: number; onFlush?: () => void },
  ) {
    this.timer = setInterval(() => this.flush(), options.lingerMs);
  }

  add(record: EncodedRecord): void {
    this.buffer.push(record);
    if (this.buffer.length >= this.options.maxBatch) this.flush();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.flush();
    await this.sending;
    if (this.failure !== undefined) throw this.failure;
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
