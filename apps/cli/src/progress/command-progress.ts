/**
 * How far a boot or a kill has got, from the facts as they arrive: booted and failed processes
 * of the boot, or terminations of the uuids its kill.accepted targets. Terminations may arrive
 * before the kill.accepted that targets them, so they are remembered until it comes.
 */
import { ProcessEventType, TerminationType, type KpmEvent } from '@kpm/contracts';

export interface ProgressSnapshot {
  label: string;
  done: number;
  failed: number;
  /** Unknown until the command is accepted (or given up front). */
  total?: number;
}

export type ProgressKind = 'boot' | 'kill';

export class CommandProgress {
  private total?: number;
  private targets?: Set<string>;
  private readonly finished = new Set<string>();
  private readonly failures = new Set<string>();
  private readonly terminated = new Set<string>();

  constructor(
    readonly commandId: string,
    readonly kind: ProgressKind,
    total?: number,
  ) {
    this.total = total;
  }

  /** Takes in one event; returns whether the progress changed. */
  observe(event: KpmEvent): boolean {
    const before = JSON.stringify(this.snapshot());
    this.take(event);
    return JSON.stringify(this.snapshot()) !== before;
  }

  snapshot(): ProgressSnapshot {
    const label = this.kind === 'boot' ? 'booted' : 'terminated';
    return { label, done: this.finished.size, failed: this.failures.size, total: this.total };
  }

  private take(event: KpmEvent): void {
    switch (event.type) {
      case ProcessEventType.bootAccepted:
        if (this.kind === 'boot' && event.data.commandId === this.commandId) {
          this.total = event.data.processes.length;
        }
        return;
      case ProcessEventType.processBooted:
        if (event.data.commandId === this.commandId) this.finished.add(event.data.process.uuid);
        return;
      case ProcessEventType.processBootFailed:
        if (event.data.commandId === this.commandId) {
          this.finished.add(event.data.uuid);
          this.failures.add(event.data.uuid);
        }
        return;
      case ProcessEventType.killAccepted:
        if (this.kind === 'kill' && event.data.commandId === this.commandId) {
          this.targets = new Set(event.data.stages.flat());
          this.total = this.targets.size;
          for (const uuid of this.terminated) this.count(uuid);
        }
        return;
      case TerminationType.processTerminated:
        if (this.kind !== 'kill') return;
        this.terminated.add(event.data.uuid);
        this.count(event.data.uuid);
        return;
      default:
        return;
    }
  }

  /** A kill counts its targets' ends; a non-zero exit is what a kill expects (143), not a failure. */
  private count(uuid: string): void {
    if (this.targets?.has(uuid)) this.finished.add(uuid);
  }
}
