import type { INestApplication } from '@nestjs/common';
import type { KpmSettings } from '@kpm/config';
import { runService } from '@kpm/service-kit';
import { StateModule } from '../../apps/state/src/state.module';
import { WatcherModule } from '../../apps/watcher/src/watcher.module';
import { BootWorkerHarness } from './boot-worker-harness';
import { testSettings } from './services';

/**
 * boot-worker, watcher and state in-process on the local stack, under a topic prefix and label
 * domain of the suite's own: the whole system for tests that drive it through a client.
 */
export class KpmTrio {
  private constructor(
    readonly harness: BootWorkerHarness,
    private readonly apps: INestApplication[],
    private readonly watcherSettings: KpmSettings,
  ) {}

  static async start(
    label: string,
    bootWorkerEnv: Record<string, string> = {},
    watcherEnv: Record<string, string> = {},
    stateEnv: Record<string, string> = {},
  ): Promise<KpmTrio> {
    const h = await BootWorkerHarness.start(label, bootWorkerEnv, { janitor: false });
    const watcherSettings = testSettings('watcher', h.prefix, {
      KPM_LABEL_DOMAIN: h.domain,
      ...watcherEnv,
    });
    const watcher = await runService(WatcherModule.register(watcherSettings), watcherSettings);
    const stateSettings = testSettings('state', h.prefix, stateEnv);
    const state = await runService(
      StateModule.register(stateSettings),
      stateSettings,
      StateModule.consumer(stateSettings),
    );
    return new KpmTrio(h, [state, watcher], watcherSettings);
  }

  /** Stops the watcher, runs `meanwhile` with no watcher running, and starts a new one. */
  async withoutWatcher(meanwhile: () => Promise<void>): Promise<void> {
    // The watcher is the last app started (see `start`).
    await this.apps.pop()!.close();
    await meanwhile();
    const settings = this.watcherSettings;
    this.apps.push(await runService(WatcherModule.register(settings), settings));
  }

  /** The state service's HTTP address (its API and dashboard), e.g. `http://127.0.0.1:41234`. */
  async stateUrl(): Promise<string> {
    return (await this.apps[0].getUrl()).replace('[::1]', '127.0.0.1');
  }

  get prefix(): string {
    return this.harness.prefix;
  }

  /** A session of this suite; its namespace is deleted by `close`. */
  session(name: string): string {
    return this.harness.session(name);
  }

  async close(): Promise<void> {
    for (const app of this.apps) await app.close();
    await this.harness.close();
  }
}
