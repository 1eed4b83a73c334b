/**
 * Reads chosen partitions of topics from their beginning up to a target offset, once, with
 * read_committed isolation: how a stateful consumer rebuilds what it owned before a restart or
 * a rebalance. kafkajs has no manual assignment, so a private consumer group with no commits
 * does the reading (deleted afterwards); partitions nobody asked for are paused.
 */
import type { Consumer } from 'kafkajs';
import { EventLoopSlices } from '@kpm/common';
import { CatchUp } from './catch-up';
import { toInboundRecord, type InboundRecord } from './inbound-record';
import type { KafkaClient } from './kafka-client';
import { privateGroupId } from './kpm-topics';
import { deletePrivateGroup, withAdmin } from './shared-admin';

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
  /** Names the private group, for the broker's logs. */
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
  const open = new CatchUp(
    [...targets].filter(([, t]) => t.end > t.start).map(([k, t]) => [k, t.end]),
  );
  if (open.done) return { records: 0 };
  const groupId = privateGroupId(`${options.label}-history`);
  const consumer = kafka.consumer({
    groupId,
    maxWaitTimeInMs: 250,
    allowAutoTopicCreation: false,
  });
  try {
    const read = await startReading(consumer, requests, targets, open, onRecord);
    await withTimeout(
      read.finished,
      options.timeoutMs ?? 120_000,
      options.signal,
      () => `history read did not reach ${open.left()}`,
    );
    return { records: read.records() };
  } finally {
    await consumer.disconnect();
    await deletePrivateGroup(kafka, groupId);
  }
}

/** Subscribes and runs the reader; `finished` resolves once every target is reached. */
async function startReading(
  consumer: Consumer,
  requests: readonly HistoryRequest[],
  targets: Map<string, Target>,
  open: CatchUp,
  onRecord: (record: InboundRecord) => void,
): Promise<{ finished: Promise<void>; records: () => number }> {
  const finished = deferred();
  let records = 0;
  const advance = (topic: string, partition: number, lastOffset: string) => {
    if (open.advance(topic, partition, lastOffset) && open.done) finished.resolve();
  };
  await consumer.connect();
  await consumer.subscribe({
    topics: [...new Set(requests.map((r) => r.topic))],
    fromBeginning: true,
  });
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) =>
    startWanted(consumer, payload.memberAssignment, targets),
  );
  // Batches made only of transaction markers never reach eachBatch but still move the position.
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) =>
    advance(payload.topic, payload.partition, payload.lastOffset),
  );
  await consumer.run({
    autoCommit: false,
    eachBatch: async (payload) => {
      const { batch } = payload;
      const target = targets.get(CatchUp.key(batch.topic, batch.partition));
      if (!target) return;
      // A batch is up to a MB of records: its handling gives the event loop a turn every slice.
      const slices = new EventLoopSlices();
      for (const message of batch.messages) {
        const offset = BigInt(message.offset);
        if (offset >= target.end) break;
        if (offset < target.start) continue; // never asked for (the seek is the fast way)
        records++;
        onRecord(toInboundRecord(batch.topic, batch.partition, message));
        // A failed heartbeat must not fail the batch: kafkajs would hand its records over again.
        if (await slices.next()) await payload.heartbeat().catch(() => undefined);
      }
      advance(batch.topic, batch.partition, batch.lastOffset());
    },
  });
  return { finished: finished.promise, records: () => records };
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

/**
 * Pauses the partitions with nothing to read (not asked for, or already at their target) and
 * seeks the others to their start. kafkajs emits GROUP_JOIN before its first fetch; the group
 * has no offsets, so a rejoin seeks again, and a record handed out twice is below the target
 * already read: harmless for a restore, whose steps are idempotent.
 */
function startWanted(
  consumer: Consumer,
  assignment: Record<string, number[]>,
  targets: Map<string, Target>,
): void {
  for (const [topic, partitions] of Object.entries(assignment)) {
    const wanted = (p: number) => {
      const target = targets.get(CatchUp.key(topic, p));
      return target !== undefined && target.end > target.start ? target : undefined;
    };
    const idle = partitions.filter((p) => !wanted(p));
    if (idle.length > 0) consumer.pause([{ topic, partitions: idle }]);
    for (const partition of partitions) {
      const target = wanted(partition);
      if (target && target.start > 0n)
        consumer.seek({ topic, partition, offset: target.start.toString() });
    }
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
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
