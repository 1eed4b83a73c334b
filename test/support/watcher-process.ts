import { eventually } from '@kpm/common';
import { ServiceProcess } from './service-process';
import { metricValue } from './metrics';

/**
 * The watcher as a child process (a ServiceProcess named for its replica), with what the
 * watcher suites ask of it: does it lead, is its watch established, what do its metrics say.
 */
export class WatcherProcess {
  private readonly process: ServiceProcess;

  constructor(
    readonly name: string,
    env: Record<string, string>,
  ) {
    this.process = new ServiceProcess('watcher', { ...env, KPM_INSTANCE: name });
  }

  get url(): string {
    return this.process.url;
  }

  /** Starts the process; resolves once `/readyz` answers 200 (leading and watching, or standby). */
  async start(timeoutMs = 120_000): Promise<this> {
    await this.process.start(timeoutMs);
    return this;
  }

  /** Waits until this replica holds the Lease and its watch is established. */
  async leading(timeoutMs = 60_000): Promise<void> {
    await eventually(async () => (await this.isLeader()) && (await this.watching()), {
      what: `watcher ${this.name} leading`,
      timeoutMs,
      everyMs: 200,
    }).catch((error: Error) => {
      throw new Error(`${error.message}:\n${this.logs()}`);
    });
  }

  async isLeader(): Promise<boolean> {
    return (await this.metric('kpm_watcher_leader')) === 1;
  }

  /** A metric's value (summed over the label sets matching `labels`), or undefined. */
  async metric(name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
    const text = await (await this.get('/metrics'))?.text();
    return text ? metricValue(text, name, labels) : undefined;
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    return this.process.kill(signal);
  }

  logs(): string {
    return this.process.logs();
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
}
