import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { eventually } from '@kpm/common';
import { stackPaths } from './paths';

/**
 * A long-running local process started detached, with its pid in `.kpm/run/<name>.pid` and its
 * output in `.kpm/logs/<name>.log`, so that `up`, `down` and `status` work across CLI invocations.
 */
export class Daemon {
  /** `dirs` moves the pid file and log elsewhere (a Kafka cluster beside the stack's broker). */
  constructor(
    readonly name: string,
    private readonly dirs?: { run: string; logs: string },
  ) {}

  get pidFile(): string {
    return join(this.dirs?.run ?? stackPaths.run(), `${this.name}.pid`);
  }

  get logFile(): string {
    return join(this.dirs?.logs ?? stackPaths.logs(), `${this.name}.log`);
  }

  pid(): number | undefined {
    if (!existsSync(this.pidFile)) return undefined;
    const pid = Number(readFileSync(this.pidFile, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
  }

  isRunning(): boolean {
    return this.pid() !== undefined;
  }

  start(
    command: string,
    args: string[],
    options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
  ): number {
    const running = this.pid();
    if (running) return running;
    mkdirSync(dirname(this.pidFile), { recursive: true });
    mkdirSync(dirname(this.logFile), { recursive: true });
    const log = openSync(this.logFile, 'a');
    try {
      const child = spawn(command, args, {
        cwd: options.cwd,
        env: options.env ?? process.env,
        detached: true,
        stdio: ['ignore', log, log],
      });
      if (!child.pid) throw new Error(`kpm: could not start ${this.name} (${command})`);
      child.unref();
      writeFileSync(this.pidFile, String(child.pid));
      return child.pid;
    } finally {
      closeSync(log);
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  async stop(graceMs = 15000): Promise<void> {
    const pid = this.pid();
    if (pid) {
      signalGroup(pid, 'SIGTERM');
      if (!(await waitUntilDead(pid, graceMs))) {
        signalGroup(pid, 'SIGKILL');
        await waitUntilDead(pid, 5000);
      }
    }
    rmSync(this.pidFile, { force: true });
  }

  /**
   * Sends `signal` to this daemon's own pid — not its process group (a containerd's shims go on),
   * nor any other process — and waits until it exited; returns the pid. Refuses, naming the pid
   * file, when it is not running: there is nothing of ours to signal.
   */
  async signalAndWait(signal: 'SIGKILL' | 'SIGTERM', timeoutMs = 30_000): Promise<number> {
    const pid = this.pid();
    if (pid === undefined) {
      throw new Error(`kpm: ${this.name} is not running (no live pid in ${this.pidFile})`);
    }
    process.kill(pid, signal);
    if (!(await waitUntilDead(pid, timeoutMs))) {
      throw new Error(`kpm: ${this.name} (pid ${pid}) still runs ${timeoutMs} ms after ${signal}`);
    }
    return pid;
  }

  /** The last lines of the log, for error messages when a start fails. */
  tail(lines = 30): string {
    if (!existsSync(this.logFile)) return '';
    return readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  // Detached children lead their own process group: signal the group so wrappers' children go too.
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
      return;
    } catch {
      // fall through to the next target
    }
  }
}

/** Whether `pid` ended within `timeoutMs` (it is checked every 100 ms). */
export async function waitUntilDead(pid: number, timeoutMs: number): Promise<boolean> {
  return eventually(() => !isAlive(pid), { timeoutMs, everyMs: 100 }).then(
    () => true,
    () => false,
  );
}
