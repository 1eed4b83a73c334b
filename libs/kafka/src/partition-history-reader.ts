/**
 * Reads chosen partitions of topics from their beginning up to a target offset, once, with
 * read_committed isolation: how a stateful consumer rebuilds what it owned before a restart or
 * a rebalance. It reads in no consumer group (`readFromPositions`): a broker holds a new
 * group's first join for `group.initial.rebalance.delay.ms`, 3 s by default, and a restore
 * should not wait for members that never come.
 */
import { EventLoopSlices } from '@kpm/common';
import { CatchUp } from './catch-up';
import type { InboundRecord } from './inbound-record';
import type { KafkaClient } from './kafka-client';
import { readFromPositions } from './positioned-reader';
import { withAdmin } from './shared-admin';

export interface HistoryRequest {
  topic: string;
  partitions: readonly number[];
  /** Exclusive end per partition; `end` is the high watermark when the read starts. */
  until: 'end' | ReadonlyMap<number, string>;
  /** First offset per partition (absent: the partition's beginning). */
  from?: ReadonlyMap<number, string>;
  /** Or only the last this many records before the end (compacted topics: fewer). */
  last?: number;
}

export interface HistoryReadOptions {
  /** What is read, named in the error when the read does not finish in time. */
  label: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** `readPartitionHistory` bound to a cluster: what a restore reads through (a fake in tests). */
export type HistoryReader = (
  requests: readonly HistoryRequest[],
  onRecord: (record: InboundRecord) => void,
  options: HistoryReadOptions,
) => Promise<unknown>;

/** Calls `onRecord` for each record below the targets, in offset order per partition. */
export async function readPartitionHistory(
  kafka: KafkaClient,
  requests: readonly HistoryRequest[],
  onRecord: (record: InboundRecord) => void,
  options: HistoryReadOptions,
): Promise<{ records: number }> {
  const targets = await resolveTargets(kafka, requests);
  const wanted = [...targets].filter(([, t]) => t.end > t.start);
  const open = new CatchUp(wanted.map(([key, t]) => [key, t.end]));
  if (open.done) return { records: 0 };
  const finished = deferred();
  let records = 0;
  // A fetch is up to a MB of records a partition: the event loop gets a turn every slice.
  const slices = new EventLoopSlices();
  const reader = await readFromPositions(kafka, {
    topics: [...new Set(requests.map((r) => r.topic))],
    next: new Map(wanted.map(([key, t]) => [key, t.start.toString()])),
    fromBeginning: true,
    onlyPositioned: true,
    // A restore must not give up while the broker is away: its own timeout bounds the wait.
    maxFailures: Infinity,
    onRecord: async (record) => {
      const target = targets.get(CatchUp.key(record.topic, record.partition));
      if (target === undefined || BigInt(record.offset) >= target.end) return;
      records++;
      onRecord(record);
      await slices.next();
    },
    onPosition: (topic, partition, next) => {
      if (open.advance(topic, partition, (BigInt(next) - 1n).toString()) && open.done) {
        finished.resolve();
      }
    },
    onError: (error) => finished.reject(error),
  });
  try {
    await withTimeout(
      finished.promise,
      options.timeoutMs ?? 120_000,
      options.signal,
      () => `${options.label}: history read did not reach ${open.left()}`,
    );
    return { records };
  } finally {
    await reader.close();
  }
}

interface Target {
  start: bigint;
  end: bigint;
}

function resolveTargets(
  kafka: KafkaClient,
  requests: readonly HistoryRequest[],
): Promise<Map<string, Target>> {
  return withAdmin(kafka, async (admin) => {
    const targets = new Map<string, Target>();
    for (const request of requests) {
      const offsets = await admin.fetchTopicOffsets(request.topic);
      for (const partition of request.partitions) {
        const known = offsets.find((o) => o.partition === partition);
        if (!known) throw new Error(`${request.topic} has no partition ${partition}`);
        const end = request.until === 'end' ? known.high : (request.until.get(partition) ?? '0');
        const low = BigInt(known.low);
        const fromLast = request.last === undefined ? 0n : BigInt(end) - BigInt(request.last);
        const from = BigInt(request.from?.get(partition) ?? fromLast.toString());
        targets.set(CatchUp.key(request.topic, partition), {
          start: from > low ? from : low,
          end: BigInt(end),
        });
      }
    }
    return targets;
  });
}

function deferred(): {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
} {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

async function withTimeout(
  work: Promise<void>,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  failure: () => string,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${failure()} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        onAbort = () => reject(new Error('history read aborted'));
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
