import type { CdfPoint, Summary } from './stats';

/** What the raw client-go program measured for N pods (ms from the first request of a phase). */
export interface RawLimit {
  pods: number;
  createdMs: number;
  runningMs: number;
  deletedMs: number;
  goneMs: number;
}

/** One kpm command measured two ways: by its facts on Kafka and by the CLI's wall clock. */
export interface KpmCommandTiming {
  /** `boot.accepted` / `kill.accepted` (CreateTime) → the completion (CreateTime). */
  acceptedToCompletionMs: number;
  /** `kpm … --wait`, process start to exit. */
  cliMs: number;
  status: string;
}

export interface SizeResult {
  n: number;
  raw: RawLimit;
  boot: KpmCommandTiming;
  terminate: KpmCommandTiming;
  /** Resident memory of each service right after the boot of N completed (N live pods). */
  rssMbAfterBoot: Record<string, number>;
}

export interface LagResult {
  pods: number;
  /** API server shows the pod terminal (independent watch) → its termination record's CreateTime. */
  summary: Summary;
  cdf: CdfPoint[];
}

/** The state service restarted over a history of `processes` processes (`records` facts). */
export interface RestorePoint {
  processes: number;
  records: number;
  /** Restored from the snapshots: its own kpm_state_restore_seconds, and the facts it replayed. */
  seconds: number;
  replayed: number;
  /** The same history read whole (every snapshot unusable), as before snapshots. */
  wholeSeconds: number;
  wholeReplayed: number;
  /** Its resident memory right after the restore. */
  rssMb: number;
}

/** Many sessions' terminates sent at once, against the raw deletes-and-wait of as many pods. */
export interface BurstResult {
  sessions: number;
  /** Processes per session. */
  size: number;
  raw: RawLimit;
  /** All the pods over the raw limit's deletes-and-wait time. */
  rawPodsPerSecond: number;
  /** Termination records seen for the burst's sessions (every pod's, when all drained). */
  terminationsSeen: number;
  /** The first `kill.accepted` → the last termination record. */
  drainMs: number;
  podsPerSecond: number;
  /** The first `kill.accepted` → the last of the terminates' completions. */
  lastCompletionMs: number;
  /** The terminates' completions by status. */
  statuses: Record<string, number>;
}

export interface E2eResults {
  machine: string;
  measuredAt: string;
  sizes: SizeResult[];
  lag?: LagResult;
  restore?: RestorePoint[];
  burst?: BurstResult;
  rssMbIdle: Record<string, number>;
  rssMbPeak: Record<string, number>;
}

/** The goals of the "boot at the API server's limit" and "termination lag" work. */
export const GOALS = {
  completionOverRawLimit: 1.2,
  cliOverCompletionMs: 1500,
  lagP99Ms: 50,
  restoreRecordsPerSecond: 50_000,
  /** A partition of 1,000,000 facts restores within this (the goal's size; measured at any). */
  restoreSeconds: 30,
  /** "Close the gap" to client-go's deletes-and-wait, within the same 1.2× as the boot. */
  burstRateOverRaw: 1 / 1.2,
} as const;
