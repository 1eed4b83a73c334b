/** What a TransactionalRunner knows about itself, for /readyz. */
export interface RunnerState {
  joined: boolean;
  /** Why the consumer stopped for good, if it did. */
  crashed?: string;
  restoring: readonly number[];
  owned: readonly number[];
}

/** Ready once in the group with every owned partition restored; the detail says what is missing. */
export function runnerReadiness(state: RunnerState): { ready: boolean; detail: string } {
  const { joined, crashed, restoring, owned } = state;
  const ready = joined && restoring.length === 0;
  const detail = crashed
    ? `consumer stopped: ${crashed}`
    : !joined
      ? 'joining the group'
      : restoring.length > 0
        ? `restoring partitions [${restoring.join(', ')}]`
        : `owns partitions [${[...owned].sort().join(', ')}]`;
  return { ready, detail };
}
