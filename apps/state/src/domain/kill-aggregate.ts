/**
 * One kill, terminate or restart: drunc's `uuids_pending_deletion`. Each targeted uuid names
 * the pod that was current when `kill.accepted` was written; a termination of that pod (seen
 * before or after the kill.accepted, in any order) removes it from the pending set. A restart
 * also records each of its processes' reboot (drunc restarts every uuid its query matches). At
 * the deadline the rest stays pending; with a progress timeout, each pod that ends moves the
 * deadline on. When each completes, and how: completion/kill.ts, completion/restart.ts.
 */
import {
  CommandType,
  type KillKind,
  type ProcessBootFailed,
  type ProcessInstance,
  type ProcessTerminated,
} from '@kpm/contracts';

export interface KillTarget {
  uuid: string;
  /** The pod the kill was aimed at; unknown when the uuid's boot is not in the history. */
  podUid?: string;
  ended?: ProcessTerminated;
  /**
   * Its pod's end was recorded and its process flushed since, so the termination is no longer
   * kept: ended all the same, never waited for again (the watcher publishes a pod's end once).
   */
  flushed?: true;
}

/** `kill.accepted`'s bounds in ms: the deadline, and the progress timeout that can move it on. */
interface KillTiming {
  timeoutMs: number;
  progressTimeoutMs?: number;
}

export type Reboot = { instance: ProcessInstance } | { failure: ProcessBootFailed };

/** A boot fact (its running instance or why it failed to start) as the reboot of a restart. */
export function rebootOf(fact: ProcessInstance | ProcessBootFailed): Reboot {
  return 'podUid' in fact ? { instance: fact } : { failure: fact };
}

const COMMAND_TYPES: Record<KillKind, string> = {
  kill: CommandType.kill,
  terminate: CommandType.terminate,
  restart: CommandType.restart,
};

/** The target's pod ended: its termination is here, or was recorded before a flush. */
export function hasEnded(target: KillTarget): boolean {
  return target.ended !== undefined || target.flushed === true;
}

/** Whose reboot it is. */
function rebootUuid(reboot: Reboot): string {
  return 'instance' in reboot ? reboot.instance.uuid : reboot.failure.uuid;
}

/**
 * Where a kill's clock and restart stand beyond its targets: what a snapshot keeps. `reboot` is
 * how snapshots of a one-process restart held it, read back as one of `reboots`.
 */
export interface KillProgressState {
  timing: KillTiming;
  due: number;
  progressAt: number;
  reboots?: Reboot[];
  reboot?: Reboot;
}

export class KillAggregate {
  private readonly targets = new Map<string, KillTarget>();
  /** A restart's outcome per targeted uuid: booted again, or not. */
  private readonly reboots = new Map<string, Reboot>();
  /** Targets without a termination, counted so `done` stays O(1) for 5000-process kills. */
  private remaining = 0;

  /** When it completes `timed_out` if still open; a progress timeout moves it on. */
  private due: number;
  /** When the last of its pods ended (its acceptance until one does). */
  private progressAt: number;

  constructor(
    readonly commandId: string,
    readonly kind: KillKind,
    readonly session: string,
    readonly acceptedAt: number,
    private readonly timing: KillTiming,
    targets: readonly KillTarget[],
  ) {
    for (const target of targets) this.targets.set(target.uuid, { ...target });
    for (const target of this.targets.values()) if (!hasEnded(target)) this.remaining++;
    this.due = acceptedAt + timing.timeoutMs;
    this.progressAt = acceptedAt;
  }

  /** The command it answers: kill, terminate or restart. */
  get commandType(): string {
    return COMMAND_TYPES[this.kind];
  }

  get deadline(): number {
    return this.due;
  }

  /** The time the deadline allowed: since the acceptance, and since the last pod ended. */
  get allowed(): { totalMs: number; sinceProgressMs?: number } {
    const { progressTimeoutMs } = this.timing;
    return progressTimeoutMs === undefined
      ? { totalMs: this.due - this.acceptedAt }
      : { totalMs: this.due - this.acceptedAt, sinceProgressMs: this.due - this.progressAt };
  }

  get uuids(): string[] {
    return [...this.targets.keys()];
  }

  /**
   * Takes a termination (applied at `time`) if it is of a targeted pod; true when it removed one
   * from pending. With a progress timeout, the deadline moves to `time` + that timeout.
   */
  offer(termination: ProcessTerminated, time: number): boolean {
    const target = this.targets.get(termination.uuid);
    if (!target || hasEnded(target)) return false;
    if (target.podUid !== undefined && target.podUid !== termination.podUid) return false;
    target.ended = termination;
    this.remaining--;
    const { progressTimeoutMs } = this.timing;
    if (progressTimeoutMs !== undefined && time > this.progressAt) {
      this.progressAt = time;
      this.due = Math.max(this.due, time + progressTimeoutMs);
    }
    return true;
  }

  /** Whether this kill aims at the pod (or took its end). */
  aimsAt(podUid: string): boolean {
    for (const target of this.targets.values())
      if (target.podUid === podUid || target.ended?.podUid === podUid) return true;
    return false;
  }

  /** A restart's process was booted again (or could not be); the first outcome per uuid counts. */
  rebooted(reboot: Reboot): void {
    const uuid = rebootUuid(reboot);
    if (this.kind !== 'restart' || !this.targets.has(uuid) || this.reboots.has(uuid)) return;
    this.reboots.set(uuid, reboot);
  }

  /** A restart's outcomes, in target order. */
  get rebootOutcomes(): Reboot[] {
    return this.uuids.flatMap((uuid) => this.reboots.get(uuid) ?? []);
  }

  get pending(): string[] {
    return [...this.targets.values()].filter((t) => !hasEnded(t)).map((t) => t.uuid);
  }

  /** Every targeted pod ended (counted, so it stays O(1) for 5000-process kills). */
  get allEnded(): boolean {
    return this.remaining === 0;
  }

  /** A restart's outcome for `uuid` so far: booted again, or not. */
  rebootOf(uuid: string): Reboot | undefined {
    return this.reboots.get(uuid);
  }

  progressState(): KillProgressState {
    const { timing, due, progressAt } = this;
    const reboots = this.rebootOutcomes;
    return reboots.length > 0 ? { timing, due, progressAt, reboots } : { timing, due, progressAt };
  }

  /** Back where a snapshot left it: the deadline as moved, and a restart's reboots. */
  resumeProgress(state: Omit<KillProgressState, 'timing'>): void {
    this.due = state.due;
    this.progressAt = state.progressAt;
    for (const reboot of [...(state.reboots ?? []), ...(state.reboot ? [state.reboot] : [])]) {
      this.rebooted(reboot);
    }
  }

  targetList(): readonly KillTarget[] {
    return [...this.targets.values()];
  }
}

/**
 * How far a kill got by its deadline: `<n> of <N> processes still pending after <s> s (<m>
 * ended)`, with `, none ended in the last <p> s` under a progress timeout.
 */
export function stillPending(kill: KillAggregate): string {
  const { totalMs, sinceProgressMs } = kill.allowed;
  const stalled =
    sinceProgressMs === undefined ? '' : `, none ended in the last ${sinceProgressMs / 1000} s`;
  const pending = kill.pending.length;
  const total = kill.uuids.length;
  return `${pending} of ${total} processes still pending after ${totalMs / 1000} s (${total - pending} ended${stalled})`;
}
