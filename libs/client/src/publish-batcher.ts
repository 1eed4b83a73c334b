/**
 * Commands published at the same time share one produce request. The producer keeps one request
 * in flight (ordering with idempotence), so without batching 200 concurrent commands would wait
 * for 200 round trips; with it they wait for a few. An idle client sends at once.
 */
import type { EncodedRecord } from '@kpm/contracts';

export interface TopicBatch {
  topic: string;
  records: EncodedRecord[];
}

interface Entry {
  topic: string;
  records: readonly EncodedRecord[];
  bytes: number;
  resolve(): void;
  reject(error: unknown): void;
}

/** Enough to amortise round trips, far below the broker's request limit (100 MiB). */
export const MAX_BATCH_BYTES = 16 * 1024 * 1024;

export class PublishBatcher {
  private readonly queue: Entry[] = [];
  private draining = false;

  constructor(
    private readonly send: (batches: TopicBatch[]) => Promise<void>,
    private readonly maxBatchBytes = MAX_BATCH_BYTES,
  ) {}

  /** Resolves once the request carrying these records was acknowledged. */
  publish(topic: string, records: readonly EncodedRecord[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const bytes = records.reduce((sum, r) => sum + r.value.length, 0);
      this.queue.push({ topic, records, bytes, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const entries = this.nextBatch();
        try {
          await this.send(byTopic(entries));
          for (const entry of entries) entry.resolve();
        } catch (error) {
          // All or nothing for the callers: a retry with the same command id is recognised.
          for (const entry of entries) entry.reject(error);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /** The queue's head up to the byte limit (always at least one entry). */
  private nextBatch(): Entry[] {
    let bytes = 0;
    let count = 0;
    while (count < this.queue.length) {
      bytes += this.queue[count].bytes;
      if (count > 0 && bytes > this.maxBatchBytes) break;
      count++;
    }
    return this.queue.splice(0, count);
  }
}

/** Records grouped by topic, in the order they were published. */
function byTopic(entries: readonly Entry[]): TopicBatch[] {
  const batches = new Map<string, TopicBatch>();
  for (const { topic, records } of entries) {
    let batch = batches.get(topic);
    if (!batch) batches.set(topic, (batch = { topic, records: [] }));
    batch.records.push(...records);
  }
  return [...batches.values()];
}
