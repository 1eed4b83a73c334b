/** What a TransactionalRunner knows about itself, for /readyz. */
export interface RunnerState {
  joined: boolean;
  /** Why the consumer stopped for good, if it did. */
  crashed?: string;
  /** Why kafkajs is restarting the consumer, until it is back in the group. */
  restarting?: string;
  restoring: readonly number[];
  owned: readonly number[];
  /** Partitions whose last transaction failed, none having committed since: p → why. */
  failing?: ReadonlyMap<number, string>;
}

/**
 * Ready once in the group with every owned partition restored and none stuck on a failing
 * transaction; the detail says what is missing, naming the partition and why.
 */
export function runnerReadiness(state: RunnerState): { ready: boolean; detail: string } {
  const { joined, crashed, restarting, restoring, owned, failing = new Map() } = state;
  const ready = joined && !restarting && restoring.length === 0 && failing.size === 0;
  const stuck = [...failing]
    .map(([p, why]) => `partition ${p} makes no progress: its transaction failed: ${why}`)
    .join('; ');
  const detail = crashed
    ? `consumer stopped: ${crashed}`
    : restarting
      ? `consumer restarting after a crash: ${restarting}`
      : !joined
        ? 'joining the group'
        : failing.size > 0
          ? stuck
          : restoring.length > 0
            ? `restoring partitions [${restoring.join(', ')}]`
            : `owns partitions [${[...owned].sort().join(', ')}]`;
  return { ready, detail };
}
