/**
 * How a TransactionalRunner restores the partition numbers it was given, together (one read of
 * the history): fence the previous owner, read the group's committed offsets, let the handler
 * rebuild its state, publish what it must publish first. A failed attempt (fenced by a newer
 * owner, a history read that timed out) releases the state, drops the producers and starts over
 * with fresh ones after a backoff.
 */
import { backoffDelay, delay, type BackoffPolicy } from '@kpm/common';
import { fetchCommittedOffsets } from './committed-offsets';
import type { KafkaClient } from './kafka-client';
import type { PartitionOwner } from './partition-owner';
import { errorMessage } from './partition-reset';
import type { PartitionStateHandler } from './partition-state-handler';

const RESTORE_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 15_000 };

/** What the restore borrows from its runner. */
export interface RestoreContext {
  kafka: KafkaClient;
  groupId: string;
  topics: readonly string[];
  handler: PartitionStateHandler;
  backoff?: BackoffPolicy;
  logger?: { warn(message: string): void; log(message: string): void };
  /** p's owner now: an owner that is no longer current is not restored any further. */
  current(partition: number): PartitionOwner | undefined;
  /** New owners (fresh producers) for the next attempt, sharing the first ones' `ready`. */
  replace(partitions: readonly number[], ready: Promise<void>): PartitionOwner[];
  stopping(): boolean;
  /** Called once the owners are restored. */
  restored(): void;
}

export async function restorePartitions(
  context: RestoreContext,
  first: PartitionOwner[],
): Promise<void> {
  let owners = first;
  for (let attempt = 1; ; attempt++) {
    owners = owners.filter((o) => context.current(o.partition) === o);
    if (owners.length === 0 || context.stopping()) return;
    try {
      await restoreOnce(context, owners);
      return;
    } catch (error) {
      context.logger?.warn(
        `restoring partitions failed (attempt ${attempt}): ${errorMessage(error)}`,
      );
      await dropAttempt(context, owners);
      await delay(backoffDelay(attempt, context.backoff ?? RESTORE_BACKOFF));
      const still = owners.filter((o) => context.current(o.partition) === o);
      owners = context.replace(
        still.map((o) => o.partition),
        first[0].ready,
      );
    }
  }
}

async function restoreOnce(context: RestoreContext, owners: PartitionOwner[]): Promise<void> {
  const started = Date.now();
  const { kafka, groupId, topics, handler } = context;
  // Fencing first: the previous owner's open transaction is aborted before we read what committed.
  await Promise.all(owners.map((owner) => owner.fence()));
  const partitions = owners.map((o) => o.partition);
  const committed = await fetchCommittedOffsets(kafka, groupId, topics, partitions);
  const first = await handler.restore(partitions, committed);
  for (const owner of owners) {
    for (const [topic, offsets] of committed)
      owner.next.set(topic, BigInt(offsets.get(owner.partition) ?? '0'));
    await owner.commit(groupId, first.get(owner.partition) ?? []);
    owner.restored = true;
  }
  context.logger?.log(
    `restored partitions [${partitions.join(', ')}] in ${Date.now() - started} ms`,
  );
  context.restored();
}

/** A producer that failed (fenced, say) is not used again: the next attempt starts afresh. */
async function dropAttempt(context: RestoreContext, owners: PartitionOwner[]): Promise<void> {
  for (const owner of owners) {
    context.handler.release(owner.partition);
    await owner.producer.disconnect().catch(() => undefined);
  }
}
