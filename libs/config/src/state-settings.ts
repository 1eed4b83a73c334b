/**
 * The state service's settings. drunc keeps its process store in memory and has nothing to
 * tune; kpm's state service adds the knobs of its Kafka transactions and its query API.
 */
import 'reflect-metadata';
import { IsInt, Max, Min } from 'class-validator';

export class StateConfig {
  /** A transaction open longer than this is aborted by the broker (kafkajs `transactionTimeout`). */
  @IsInt()
  @Min(1_000)
  @Max(900_000)
  transactionTimeoutMs = 60_000;

  /**
   * The consumer group session timeout: how long a crashed replica keeps its partitions before
   * the group moves them (kafkajs has no static membership, so a restart waits this long).
   */
  @IsInt()
  @Min(6_000)
  @Max(300_000)
  sessionTimeoutMs = 10_000;

  /** Longest wait for a partition's history to be read back after a restart or rebalance. */
  @IsInt()
  @Min(1_000)
  @Max(3_600_000)
  restoreTimeoutMs = 300_000;

  /**
   * A shard writes its snapshot (docs/design.md §9.4) after this many input records since the
   * last one, or as many as that snapshot had entries if more: a restore replays at most about
   * that many records after the snapshot.
   */
  @IsInt()
  @Min(100)
  @Max(10_000_000)
  snapshotEveryRecords = 5_000;

  /**
   * ...and at the latest this long after the first record since the last snapshot. Keep it well
   * under `delete.retention.ms` of `kpm.processes` (1 day), so a flush's tombstone is still
   * there for a restore from the snapshot before it.
   */
  @IsInt()
  @Min(1)
  @Max(21_600)
  snapshotIntervalSeconds = 300;

  /** Completions kept in memory for `GET /v1/commands/:id` (older ones are on kpm.completions). */
  @IsInt()
  @Min(10)
  @Max(1_000_000)
  completionCacheSize = 5_000;

  /** ...and at most this many processes listed in them all (the latest is kept whatever its size). */
  @IsInt()
  @Min(10)
  @Max(10_000_000)
  completionCacheProcesses = 10_000;

  /**
   * Per partition: ids of the last commands completed, so a late duplicate of their facts
   * completes nothing twice (docs/design.md §6.6).
   */
  @IsInt()
  @Min(100)
  @Max(10_000_000)
  completedCommandsKept = 20_000;

  /** Per partition: commands whose boot facts are held until their acceptance comes. */
  @IsInt()
  @Min(10)
  @Max(1_000_000)
  heldCommandsKept = 1_000;

  /** Per partition: pods of flushed processes, so their late facts do not bring them back. */
  @IsInt()
  @Min(100)
  @Max(10_000_000)
  forgottenPodsKept = 20_000;
}

export const STATE_ENV: ReadonlyArray<[string, string, (raw: string) => unknown]> = [
  ['KPM_STATE_TRANSACTION_TIMEOUT_MS', 'state.transactionTimeoutMs', Number],
  ['KPM_STATE_SESSION_TIMEOUT_MS', 'state.sessionTimeoutMs', Number],
  ['KPM_STATE_RESTORE_TIMEOUT_MS', 'state.restoreTimeoutMs', Number],
  ['KPM_STATE_SNAPSHOT_EVERY_RECORDS', 'state.snapshotEveryRecords', Number],
  ['KPM_STATE_SNAPSHOT_INTERVAL_SECONDS', 'state.snapshotIntervalSeconds', Number],
  ['KPM_STATE_COMPLETION_CACHE_SIZE', 'state.completionCacheSize', Number],
  ['KPM_STATE_COMPLETION_CACHE_PROCESSES', 'state.completionCacheProcesses', Number],
  ['KPM_STATE_COMPLETED_COMMANDS_KEPT', 'state.completedCommandsKept', Number],
  ['KPM_STATE_HELD_COMMANDS_KEPT', 'state.heldCommandsKept', Number],
  ['KPM_STATE_FORGOTTEN_PODS_KEPT', 'state.forgottenPodsKept', Number],
];
