/**
 * One kill, terminate or restart: drunc's `uuids_pending_deletion`. Each targeted uuid names
 * the pod that was current when `kill.accepted` was written; a termination of that pod (seen
 * before or after the kill.accepted, in any order) removes it from the pending set. A restart
 * also waits for its process to be booted again. At the deadline the rest stays pending.
 */
import type {
  KillKind,
  ProcessBootFailed,
  ProcessInstance,
  ProcessTerminated,
} from '@kpm/contracts';

export interface KillTarget {
  uuid: string;
  /** The pod the kill was aimed at; unknown when the uuid's boot is not in the history. */
  podUid?: string;
  ended?: ProcessTerminated;
}

export type Reboot = { instance: ProcessInstance } | { failure: ProcessBootFailed };

export class KillAggregate {
  private readonly targets = new Map<string, KillTarget>();
  private reboot?: Reboot;
  /** Targets without a termination, counted so `done` stays O(1) for 5000-process kills. */
  private remaining = 0;

  constructor(
    readonly commandId: string,
    readonly kind: KillKind,
    readonly session: string,
    readonly acceptedAt: number,
    readonly deadline: number,
    targets: readonly KillTarget[],
  ) {
    for (const target of targets) this.targets.set(target.uuid, { ...target });
    for (const target of this.targets.values()) if (!target.ended) this.remaining++;
  }

  get uuids(): string[] {
    return [...this.targets.keys()];
  }

  /** Takes a termination if it is of a targeted pod; true when it removed one from pending. */
  offer(termination: ProcessTerminated): boolean {
    const target = this.targets.get(termination.uuid);
    if (!target || target.ended) return false;
    if (target.podUid !== undefined && target.podUid !== termination.podUid) return false;
    target.ended = termination;
    this.remaining--;
    return true;
  }

  /** A restart's process was booted again (or could not be). */
  rebooted(reboot: Reboot): void {
    if (this.kind === 'restart' && !this.reboot) this.reboot = reboot;
  }

  get rebootOutcome(): Reboot | undefined {
    return this.reboot;
  }

  get pending(): string[] {
    return [...this.targets.values()].filter((t) => !t.ended).map((t) => t.uuid);
  }

  /** Done when every target ended (and a restart's process is back), or its reboot failed. */
  get done(): boolean {
    if (this.reboot && 'failure' in this.reboot) return true;
    return this.remaining === 0 && (this.kind !== 'restart' || this.reboot !== undefined);
  }

  targetList(): readonly KillTarget[] {
    return [...this.targets.values()];
  }
}
