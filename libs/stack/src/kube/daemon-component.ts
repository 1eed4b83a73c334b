import type { ComponentStatus, StackComponent, StackEnv } from '../component';
import { Daemon } from '../daemon';
import { WaitAborted, waitFor } from '../wait';
import type { Progress } from './go-build';

/**
 * A control-plane component that is one local daemon (etcd, kube-apiserver, kwok, scheduler,
 * controller-manager): `down` stops it, `status` asks its readiness probe, and a probe gives up
 * at once when the process died. Subclasses say how to start it and how to tell it is ready.
 */
export abstract class DaemonComponent implements StackComponent {
  protected readonly daemon: Daemon;
  protected readonly progress: Progress;

  protected constructor(
    readonly name: string,
    progress: Progress | undefined,
  ) {
    this.daemon = new Daemon(name);
    this.progress = progress ?? (() => undefined);
  }

  abstract up(): Promise<StackEnv>;

  async down(): Promise<void> {
    await this.daemon.stop();
  }

  async status(): Promise<ComponentStatus> {
    const pid = this.daemon.pid();
    const ready = pid !== undefined && (await this.probe().catch(() => false));
    const detail = pid === undefined ? 'not running' : this.describe(ready);
    const endpoint = this.servingUrl();
    return { name: this.name, running: ready, pid, ...(endpoint && { endpoint }), detail };
  }

  /** Whether the running daemon serves, as `status` asks it (outside `up`). */
  protected abstract probe(): Promise<boolean>;

  /** What `status` says of the running daemon, ready or not. */
  protected abstract describe(ready: boolean): string;

  /** Where the daemon serves (`status` shows it); none by default. */
  protected servingUrl(): string | undefined {
    return undefined;
  }

  /** Polls `probe` until it holds; a timeout shows the end of the daemon's log. */
  protected waitReady(
    what: string,
    probe: () => Promise<boolean>,
    timing: { timeoutMs: number; intervalMs?: number },
  ): Promise<void> {
    return waitFor(what, probe, { ...timing, onTimeout: () => this.daemon.tail() });
  }

  /** For probes: throws WaitAborted (ending a wait at once) when the process has exited. */
  protected assertRunning(): void {
    if (!this.daemon.isRunning()) {
      throw new WaitAborted(`kpm: ${this.name} exited\n${this.daemon.tail()}`);
    }
  }
}
