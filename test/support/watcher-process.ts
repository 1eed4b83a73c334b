import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './free-port';

/**
 * The watcher as a child process (`node --require tsx/cjs apps/watcher/src/main.ts`), as
 * `kpm services up` runs it, so a test can SIGKILL it mid-work and start it again.
 */
export class WatcherProcess {
  private child?: ChildProcess;
  private output = '';
  url = '';

  constructor(
    readonly name: string,
    private readonly env: Record<string, string>,
  ) {}

  /** Starts the process; resolves once `/readyz` answers 200 (leading and watching, or standby). */
  async start(timeoutMs = 120_000): Promise<this> {
    const port = await freePort();
    const root = join(__dirname, '..', '..');
    this.child = spawn(
      process.execPath,
      ['--require', 'tsx/cjs', join(root, 'apps', 'watcher', 'src', 'main.ts')],
      {
        cwd: root,
        env: { ...process.env, ...this.env, KPM_INSTANCE: this.name, KPM_HTTP_PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-30_000));
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    this.url = `http://127.0.0.1:${port}`;
    await this.until(async () => (await this.get('/readyz'))?.status === 200, timeoutMs, 'ready');
    return this;
  }

  /** Waits until this replica holds the Lease and its watch is established. */
  async leading(timeoutMs = 60_000): Promise<void> {
    await this.until(
      async () => (await this.isLeader()) && (await this.watching()),
      timeoutMs,
      'leading',
    );
  }

  async isLeader(): Promise<boolean> {
    return (await this.metric('kpm_watcher_leader')) === 1;
  }

  /** A metric's value (summed over label sets matching `labels`), or undefined. */
  async metric(name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
    const text = await (await this.get('/metrics'))?.text();
    if (!text) return undefined;
    let total: number | undefined;
    for (const line of text.split('\n')) {
      const match = /^([a-z_:]+)(\{[^}]*\})? (\S+)$/.exec(line);
      if (!match || match[1] !== name) continue;
      const set = match[2] ?? '';
      if (!Object.entries(labels).every(([key, value]) => set.includes(`${key}="${value}"`)))
        continue;
      total = (total ?? 0) + Number(match[3]);
    }
    return total;
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  logs(): string {
    return this.output.split('\n').slice(-80).join('\n');
  }

  private async watching(): Promise<boolean> {
    const body = (await (await this.get('/readyz'))?.json()) as
      { parts?: Record<string, { ready: boolean; detail?: string }> } | undefined;
    const part = body?.parts?.['pod-watch'];
    return Boolean(part?.ready && part.detail?.startsWith('watching'));
  }

  private async get(path: string): Promise<Response | undefined> {
    return fetch(`${this.url}${path}`).catch(() => undefined);
  }

  private async until(
    check: () => Promise<boolean>,
    timeoutMs: number,
    what: string,
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.child?.exitCode !== null && this.child?.exitCode !== undefined) {
        throw new Error(`watcher ${this.name} exited (${this.child.exitCode}):\n${this.logs()}`);
      }
      if (await check()) return;
      if (Date.now() > deadline)
        throw new Error(`watcher ${this.name} not ${what} in ${timeoutMs} ms:\n${this.logs()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
