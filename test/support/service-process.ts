import { eventually } from '@kpm/common';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { LOCAL_SERVICE_SETTINGS } from '@kpm/stack';

/** A free TCP port on 127.0.0.1, for a child service's HTTP server. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Extra `node` options for the children tests and benchmarks start (services, the CLI), from
 * KPM_CHILD_NODE_ARGS — e.g. `--cpu-prof --cpu-prof-dir=prof`, which NODE_OPTIONS refuses.
 */
export function childNodeArgs(): string[] {
  return (process.env.KPM_CHILD_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
}

/**
 * A kpm service as a child process (`node --require tsx/cjs apps/<service>/src/main.ts`, or its
 * compiled `entry`), so a test can SIGKILL it mid-work and start it again; with the local
 * stack's settings (LOCAL_SERVICE_SETTINGS) under the given ones.
 */
export class ServiceProcess {
  private child?: ChildProcess;
  private output: string[] = [];
  url = '';

  constructor(
    private readonly service: string,
    private readonly env: Record<string, string>,
    /** The compiled entry (dist/apps/<service>/src/main.js) to run instead of the sources. */
    private readonly entry?: string,
    /** `node` options before the entry (a Deployment's V8 flags). */
    private readonly nodeArgs: readonly string[] = [],
  ) {}

  /** Starts the service and resolves with its URL once `upPath` (default `/readyz`) answers 200. */
  async start(timeoutMs = 120_000, upPath = '/readyz'): Promise<string> {
    const port = await freePort();
    const root = join(__dirname, '..', '..');
    const main = this.entry
      ? [this.entry]
      : ['--require', 'tsx/cjs', join(root, 'apps', this.service, 'src', 'main.ts')];
    const child = spawn(process.execPath, [...this.nodeArgs, ...childNodeArgs(), ...main], {
      cwd: root,
      env: { ...LOCAL_SERVICE_SETTINGS, ...process.env, ...this.env, KPM_HTTP_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    // With KPM_TEST_LOG_DIR set, each child's whole output is kept there (the buffer keeps a tail).
    const logDir = process.env.KPM_TEST_LOG_DIR;
    const file = logDir
      ? createWriteStream(join(logDir, `${this.service}-${child.pid}.log`))
      : undefined;
    child.once('exit', () => file?.end());
    const keep = (chunk: Buffer) => {
      file?.write(chunk);
      this.output.push(chunk.toString('utf8'));
      if (this.output.length > 400) this.output.splice(0, 100);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.url = `http://127.0.0.1:${port}`;
    const url = this.url;
    await eventually(() => fetch(`${url}${upPath}`).then((r) => r.status === 200), {
      what: `${this.service} ready`,
      timeoutMs,
      everyMs: 250,
      failFast: () =>
        child.exitCode === null
          ? undefined
          : new Error(`${this.service} exited with ${child.exitCode}:\n${this.logs()}`),
    }).catch((error: Error) => {
      throw new Error(`${error.message}:\n${this.logs()}`);
    });
    return url;
  }

  /** The child's pid while it runs (a service that recovered by itself keeps it). */
  get pid(): number | undefined {
    const child = this.child;
    return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
  }

  /** Sends `signal` and waits for the process to exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }

  /** Sends `signal` without waiting (SIGSTOP/SIGCONT make a zombie and wake it). */
  signal(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  logs(): string {
    return this.output.join('').split('\n').slice(-60).join('\n');
  }
}
