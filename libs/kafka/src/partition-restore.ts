/**
 * How a TransactionalRunner restores the partition numbers it was given, together (one read of
 * the history): fence the previous owner, read the group's committed offsets, let the handler
 * rebuild its state, publish what it must publish first. A failed attempt (fenced by a newer
 * owner, a history read that timed out) releases the state, drops the producers and starts over
 * with fresh owners after a backoff. An owner replaced meanwhile (a rebalance, another restore)
 * is restored no further.
 */
import {
  BACKOFF,
  errorText,
  logEvent,
  retry,
  type BackoffPolicy,
  type LogEvent,
} from '@kpm/common';
import type { PartitionOwner, PartitionOwners } from './partition-owner';
import type { CommittedOffsets, PartitionStateHandler } from './partition-state-handler';

interface RestoreInputs {
  owners: PartitionOwners;
  handler: PartitionStateHandler;
  groupId: string;
  /** The group's committed input offsets of these partitions. */
  committed(partitions: readonly number[]): Promise<CommittedOffsets>;
  /** Aborted when the runner stops: no further attempt. */
  signal: AbortSignal;
  backoff?: BackoffPolicy;
  logger?: { warn(entry: LogEvent): void; log(entry: LogEvent): void };
}

/** Restores `first` (retrying with fresh owners); resolves with the owners restored. */
export async function restorePartitions(
  inputs: RestoreInputs,
  first: PartitionOwner[],
): Promise<PartitionOwner[]> {
  const { owners: table, logger } = inputs;
  let owners = first;
  const attempt = async (n: number): Promise<PartitionOwner[]> => {
    const still = owners.filter((o) => table.isCurrent(o));
    // A new attempt gets fresh owners (fresh producers) for the partitions still ours.
    owners =
      n === 1
        ? still
        : table.create(
            still.map((o) => o.partition),
            first[0].ready,
          );
    if (owners.length > 0) await restoreOnce(inputs, owners);
    return owners;
  };
  return retry(attempt, {
    backoff: inputs.backoff ?? BACKOFF.partitionRestore,
    signal: inputs.signal,
    onRetry: async (error, n) => {
      logger?.warn(logEvent('partitions.restore_failed', { attempt: n, error: errorText(error) }));
      await dropAttempt(inputs.handler, owners);
    },
  }).catch(() => []); // the runner stops: nothing is restored
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
    logEvent('partitions.restored', { partitions, durationMs: Date.now() - started }),
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
