/**
 * How a TransactionalRunner restores the partition numbers it was given, together (one read of
 * the history): fence the previous owner, read the group's committed offsets, let the handler
 * rebuild its state, publish what it must publish first. A failed attempt (fenced by a newer
 * owner, a history read that timed out) releases the state, drops the producers and starts over
 * with fresh owners after a backoff. An owner replaced meanwhile (a rebalance, another restore)
 * is restored no further.
 */
import { backoffDelay, delay, errorText, type BackoffPolicy } from '@kpm/common';
import type { PartitionOwner, PartitionOwners } from './partition-owner';
import type { CommittedOffsets, PartitionStateHandler } from './partition-state-handler';

const RESTORE_BACKOFF: BackoffPolicy = { initialMs: 500, maxMs: 15_000 };

export interface RestoreInputs {
  owners: PartitionOwners;
  handler: PartitionStateHandler;
  groupId: string;
  /** The group's committed input offsets of these partitions. */
  committed(partitions: readonly number[]): Promise<CommittedOffsets>;
  /** Aborted when the runner stops: no further attempt. */
  signal: AbortSignal;
  backoff?: BackoffPolicy;
  logger?: { warn(message: string): void; log(message: string): void };
}

/** Restores `first` (retrying with fresh owners); resolves with the owners restored. */
export async function restorePartitions(
  inputs: RestoreInputs,
  first: PartitionOwner[],
): Promise<PartitionOwner[]> {
  const { owners: table, signal, logger } = inputs;
  let owners = first;
  for (let attempt = 1; ; attempt++) {
    owners = owners.filter((o) => table.isCurrent(o));
    if (owners.length === 0 || signal.aborted) return [];
    try {
      await restoreOnce(inputs, owners);
      return owners;
    } catch (error) {
      logger?.warn(`restoring partitions failed (attempt ${attempt}): ${errorText(error)}`);
      await dropAttempt(inputs.handler, owners);
      await delay(backoffDelay(attempt, inputs.backoff ?? RESTORE_BACKOFF), signal);
      const still = owners.filter((o) => table.isCurrent(o)).map((o) => o.partition);
      owners = table.create(still, first[0].ready);
    }
  }
}

async function restoreOnce(inputs: RestoreInputs, owners: PartitionOwner[]): Promise<void> {
  const started = Date.now();
  const { groupId, handler } = inputs;
  // Fencing first: the previous owner's open transaction is aborted before we read what committed.
  await Promise.all(owners.map((owner) => owner.fence()));
  const partitions = owners.map((o) => o.partition);
  const committed = await inputs.committed(partitions);
  const first = await handler.restore(partitions, committed);
  for (const owner of owners) {
    for (const [topic, offsets] of committed)
      owner.next.set(topic, BigInt(offsets.get(owner.partition) ?? '0'));
    await owner.commit(groupId, first.get(owner.partition) ?? []);
    owner.restored = true;
  }
  inputs.logger?.log(
    `restored partitions [${partitions.join(', ')}] in ${Date.now() - started} ms`,
  );
}

/** A producer that failed (fenced, say) is not used again: the next attempt starts afresh. */
async function dropAttempt(
  handler: PartitionStateHandler,
  owners: PartitionOwner[],
): Promise<void> {
  for (const owner of owners) {
    handler.release(owner.partition);
    await owner.producer.disconnect().catch(() => undefined);
  }
}
