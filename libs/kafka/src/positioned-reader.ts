/**
 * Reads topics from fixed start positions, committing nothing. kafkajs only consumes in a
 * consumer group, so each reader uses a group of its own; the positions are applied by a seek on
 * every group join (kafkajs emits GROUP_JOIN synchronously before its first fetch), and after a
 * rejoin the seek resumes after the last record handed out, so a rebalance or reconnect neither
 * skips nor replays records.
 */
import type { Consumer, EachBatchPayload } from 'kafkajs';
import { CatchUp } from './catch-up';
import { whileHeartbeating } from './heartbeats';
import { toInboundRecord, type InboundRecord } from './inbound-record';
import type { KafkaClient } from './kafka-client';
import { deletePrivateGroup } from './shared-admin';

interface PositionedReadRequest {
  /** A group id nobody else uses; deleted when the reader closes. */
  groupId: string;
  topics: readonly string[];
  /** The next offset to hand out per `topic/partition`; moves on as records are handed out. */
  next: Map<string, string>;
  /** Where partitions missing from `next` start. */
  fromBeginning: boolean;
  /** Awaited before the next record of the partition. */
  onRecord(record: InboundRecord): Promise<void> | void;
  /** The reader stopped for good (the broker stayed unreachable, say); no record follows. */
  onError(error: Error): void;
}

export interface PositionedReader {
  close(): Promise<void>;
}

/** Starts reading; resolves once the reader runs (its start positions fixed). */
export async function readFromPositions(
  kafka: KafkaClient,
  request: PositionedReadRequest,
): Promise<PositionedReader> {
  const consumer = kafka.consumer({
    groupId: request.groupId,
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: 500,
  });
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) =>
    seekToPositions(consumer, payload.memberAssignment, request.next),
  );
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) request.onError(payload.error);
  });
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [...request.topics], fromBeginning: request.fromBeginning });
    await consumer.run({ autoCommit: false, eachBatch: (payload) => handOut(payload, request) });
  } catch (error) {
    await consumer.disconnect().catch(() => undefined);
    throw error;
  }
  return {
    close: async () => {
      await consumer.disconnect();
      await deletePrivateGroup(kafka, request.groupId);
    },
  };
}

function seekToPositions(
  consumer: Consumer,
  assignment: Record<string, number[]>,
  next: ReadonlyMap<string, string>,
): void {
  for (const [topic, partitions] of Object.entries(assignment)) {
    for (const partition of partitions) {
      const offset = next.get(CatchUp.key(topic, partition));
      if (offset !== undefined) consumer.seek({ topic, partition, offset });
    }
  }
}

/** Hands the batch's records out one by one, each after the previous one was taken. */
async function handOut(payload: EachBatchPayload, request: PositionedReadRequest): Promise<void> {
  const { batch } = payload;
  for (const message of batch.messages) {
    if (!payload.isRunning() || payload.isStale()) return;
    const record = toInboundRecord(batch.topic, batch.partition, message);
    // A slow reader must not lose the group membership: kafkajs beats only between batches.
    await whileHeartbeating(
      () => payload.heartbeat(),
      1_000,
      async () => request.onRecord(record),
      () => undefined,
    );
    payload.resolveOffset(message.offset);
    request.next.set(
      CatchUp.key(batch.topic, batch.partition),
      (BigInt(message.offset) + 1n).toString(),
    );
  }
}
