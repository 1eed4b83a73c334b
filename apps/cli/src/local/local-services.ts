import {
  Daemon,
  ensureServiceBuilt,
  readStackEnv,
  repoRoot,
  serviceKafkaIdentity,
  stackPaths,
  waitFor,
} from '@kpm/stack';

export const SERVICE_NAMES = ['boot-worker', 'watcher', 'state'] as const;
export type LocalServiceName = (typeof SERVICE_NAMES)[number];

/** Local HTTP ports of the services (health, metrics, the state API); KPM_<SERVICE>_PORT overrides. */
const DEFAULT_PORTS: Record<LocalServiceName, number> = {
  state: 8480,
  'boot-worker': 8481,
  watcher: 8482,
};

export interface LocalServiceStatus {
  service: LocalServiceName;
  pid: number | null;
  port: number;
  ready: boolean;
}

/** The three services as local processes (`kpm services up|down|status`), logs under `.kpm/logs/`. */
export class LocalServices {
  port(service: LocalServiceName): number {
    const override = process.env[`KPM_${service.toUpperCase().replace('-', '_')}_PORT`];
    return override ? Number(override) : DEFAULT_PORTS[service];
  }

  /** Starts what is not running (a service that died is started again) and waits until all are ready. */
  async up(timeoutMs = 120_000): Promise<LocalServiceStatus[]> {
    const stackEnv = readStackEnv();
    if (!stackEnv.KPM_KAFKA_BROKERS)
      throw new Error('kpm: the local stack is not up; run `npx kpm stack up` first');
    for (const service of SERVICE_NAMES) {
      const daemon = new Daemon(service);
      if (daemon.isRunning()) continue;
      const entry = await ensureServiceBuilt(service, (message) =>
        console.error(`kpm services: ${message}`),
      );
      daemon.start(process.execPath, ['--enable-source-maps', entry], {
        cwd: repoRoot(),
        env: {
          ...process.env,
          ...stackEnv,
          ...serviceKafkaIdentity(service, stackEnv),
          KPM_HTTP_PORT: String(this.port(service)),
          KPM_HOME: stackPaths.home(),
        },
      });
    }
    for (const service of SERVICE_NAMES) {
      const daemon = new Daemon(service);
      await waitFor(
        `${service} /readyz`,
        async () => daemon.isRunning() && (await this.ready(service)),
        {
          timeoutMs,
          intervalMs: 300,
          onTimeout: () => `last lines of ${daemon.logFile}:\n${daemon.tail(20)}`,
        },
      );
    }
    return this.status();
  }

  async down(): Promise<void> {
    await Promise.all(SERVICE_NAMES.map((service) => new Daemon(service).stop(30_000)));
  }

  async status(): Promise<LocalServiceStatus[]> {
    return Promise.all(
      SERVICE_NAMES.map(async (service) => {
        const pid = new Daemon(service).pid() ?? null;
        return {
          service,
          pid,
          port: this.port(service),
          ready: pid !== null && (await this.ready(service)),
        };
      }),
    );
  }

  private async ready(service: LocalServiceName): Promise<boolean> {
    try {
      const response = await fetch(`http://127.0.0.1:${this.port(service)}/readyz`, {
        signal: AbortSignal.timeout(2000),
      });
      return response.ok;
    } catch {
      return false;
    }
  }
}
