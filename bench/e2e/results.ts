import type { CommandMoments } from './fact-clock';
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
  /** When each step reached Kafka, and the CLI's spawn and exit (ms since the epoch). */
  moments?: CommandMoments & { cliStartedAtMs: number; cliExitedAtMs: number };
  /** CPU time each service spent from the CLI's start to its exit, in ms. */
  serviceCpuMs?: Record<string, number>;
}

/**
 * One readout application restarted mid-session: the raw floor (client-go deleting one pod,
 * waiting until it is gone, creating it again) beside kpm's `restart --wait` of one process.
 */
export interface RestartMeasurement {
  process: string;
  /** One pod by the raw program: its delete → gone, then its create, ms. */
  raw: RawLimit;
  kpm: KpmCommandTiming;
}

/** One measurement of N: the raw limit, then kpm's boot, a restart and terminate, back to back. */
export interface SizeRun {
  raw: RawLimit;
  boot: KpmCommandTiming;
  /** Absent in results of runs before the restart was measured. */
  restart?: RestartMeasurement;
  terminate: KpmCommandTiming;
}

export interface SizeResult extends SizeRun {
  n: number;
  /** A DUNE-shaped session over this many simulated hosts (dune-session.ts); else flat. */
  hosts?: number;
  /**
   * Every repeat of N, in order; the fields above are those of the repeat whose boot ratio is
   * the median (a measured run, not a mix of runs).
   */
  repeats?: SizeRun[];
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
  /** The state service's heap per process booted and killed, in bytes (bench/memory.ts). */
  stateHeapPerProcessBytes?: number;
}

/** The goals of issue 27 ("at the API server's limit at every size, light on memory"). */
export const GOALS = {
  /** kpm's boot, accepted → completion, over the raw create time: at every N… */
  completionOverRawLimit: 1.2,
  /** …and at N ≥ {@link GOALS.largeN}. */
  completionOverRawLimitLarge: 1.1,
  largeN: 1000,
  /** kpm's terminate, accepted → completion, over the raw deletes-and-wait. */
  terminateOverRawGone: 1.1,
  /** `kpm boot --wait` beyond the completion: at N ≤ 100, and at N = 5000 (linear between). */
  cliOverCompletionMs: { small: 300, smallN: 100, large: 1000, largeN: 5000 },
  lagP99Ms: 30,
  /** Each service's resident memory, idle. */
  idleRssMb: 120,
  /** The state service's heap per process booted and killed (shard, view, dashboard). */
  stateHeapPerProcessBytes: 3 * 1024,
  restoreRecordsPerSecond: 50_000,
  /** A partition of 1,000,000 facts restores within this (the goal's size; measured at any). */
  restoreSeconds: 30,
  /** "Close the gap" to client-go's deletes-and-wait, within the same 1.2× as the boot. */
  burstRateOverRaw: 1 / 1.2,
} as const;

/** The boot's goal over the raw create time at `n`. */
export function bootRatioGoal(n: number): number {
  return n >= GOALS.largeN ? GOALS.completionOverRawLimitLarge : GOALS.completionOverRawLimit;
}

/** What `kpm boot --wait` may add to the completion at `n` (linear between the two goals). */
export function cliGoalMs(n: number): number {
  const { small, smallN, large, largeN } = GOALS.cliOverCompletionMs;
  if (n <= smallN) return small;
  if (n >= largeN) return large;
  return Math.round(small + ((large - small) * (n - smallN)) / (largeN - smallN));
}
