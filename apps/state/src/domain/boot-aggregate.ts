/**
 * One boot command: every accepted process ends up booted or failed (drunc's boot answers per
 * process); when it completes, and how, is completion/boot.ts.
 */
import type { AcceptedProcess, ProcessBootFailed, ProcessInstance } from '@kpm/contracts';

export class BootAggregate {
  private readonly booted = new Map<string, ProcessInstance>();
  private readonly failed = new Map<string, ProcessBootFailed>();
  private readonly index = new Map<string, number>();
  /** Accepted uuids with an outcome, counted so `done` stays O(1) for 5000-process boots. */
  private settled = 0;

  constructor(
    readonly commandId: string,
    readonly session: string,
    readonly acceptedAt: number,
    readonly processes: readonly AcceptedProcess[],
  ) {
    processes.forEach((p, i) => this.index.set(p.uuid, i));
  }

  offerBooted(instance: ProcessInstance): void {
    if (!this.index.has(instance.uuid)) return;
    this.countFirstOutcome(instance.uuid);
    this.booted.set(instance.uuid, instance);
  }

  offerFailed(failure: ProcessBootFailed): void {
    if (!this.index.has(failure.uuid)) return;
    this.countFirstOutcome(failure.uuid);
    this.failed.set(failure.uuid, failure);
  }

  private countFirstOutcome(uuid: string): void {
    if (!this.booted.has(uuid) && !this.failed.has(uuid)) this.settled++;
  }

  /** Accepted processes with neither a `process.booted` nor a `boot-failed` yet. */
  get pending(): string[] {
    return this.processes
      .map((p) => p.uuid)
      .filter((uuid) => !this.booted.has(uuid) && !this.failed.has(uuid));
  }

  /** Every accepted process has an outcome (counted, so it stays O(1) for 5000-process boots). */
  get allSettled(): boolean {
    return this.settled === this.index.size;
  }

  /** Every outcome so far, booted and failed (what a snapshot keeps). */
  outcomes(): { booted: ProcessInstance[]; failed: ProcessBootFailed[] } {
    return { booted: [...this.booted.values()], failed: [...this.failed.values()] };
  }

  bootedInstances(): ProcessInstance[] {
    return this.processes.flatMap((p) => {
      const instance = this.booted.get(p.uuid);
      return instance ? [instance] : [];
    });
  }

  /** One error per failed process, pointing at its place in the boot command. */
  errors(): { path: string; message: string }[] {
    return [...this.failed.values()]
      .map((f) => ({ i: this.index.get(f.uuid) ?? -1, f }))
      .sort((a, b) => a.i - b.i)
      .map(({ i, f }) => ({
        path: `processes[${i}]`,
        message: `${f.name} (${f.uuid}) failed to boot: ${f.error.code}: ${f.error.message}`,
      }));
  }
}
