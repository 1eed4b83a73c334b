/**
 * Commands published at the same time share one produce request. The producer keeps one request
 * in flight (ordering with idempotence), so without batching 200 concurrent commands would wait
 * for 200 round trips; with it they wait for a few (libs/common Batcher). An idle client sends at
 * once.
 */
import { Batcher } from '@kpm/common';
import type { EncodedRecord } from '@kpm/contracts';

export interface TopicBatch {
  topic: string;
  records: EncodedRecord[];
}

interface Publication {
  topic: string;
  records: readonly EncodedRecord[];
}

/** Enough to amortise round trips, far below the broker's request limit (100 MiB). */
export const MAX_BATCH_BYTES = 16 * 1024 * 1024;

export class PublishBatcher {
  private readonly batcher: Batcher<Publication>;

  constructor(send: (batches: TopicBatch[]) => Promise<void>, maxBatchBytes = MAX_BATCH_BYTES) {
    this.batcher = new Batcher({
      // All or nothing for the callers of one request: a retry with the same command id is recognised.
      send: (publications) => send(byTopic(publications)),
      maxBytes: maxBatchBytes,
      bytesOf: ({ records }) => records.reduce((sum, r) => sum + r.value.length, 0),
    });
  }

  /** Resolves once the request carrying these records was acknowledged. */
  publish(topic: string, records: readonly EncodedRecord[]): Promise<void> {
    return this.batcher.send({ topic, records });
  }
}

/** Records grouped by topic, in the order they were published. */
function byTopic(publications: readonly Publication[]): TopicBatch[] {
  const batches = new Map<string, TopicBatch>();
  for (const { topic, records } of publications) {
    let batch = batches.get(topic);
    if (!batch) batches.set(topic, (batch = { topic, records: [] }));
    batch.records.push(...records);
  }
  return [...batches.values()];
}
