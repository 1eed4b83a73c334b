import {
  Daemon,
  ensureServiceBuilt,
  LOCAL_SERVICE_SETTINGS,
  readStackEnv,
  repoRoot,
  serviceKafkaIdentity,
  stackPaths,
  waitFor,
  writeStackEnv,
} from '@kpm/stack';
import { SERVICE_V8_FLAGS } from '@kpm/service-kit/v8-flags'; // not the index: it loads Nest

export const SERVICE_NAMES = ['boot-worker', 'watcher', 'state', 'drunc-gateway'] as const;
export type LocalServiceName = (typeof SERVICE_NAMES)[number];

/** Local HTTP ports of the services (health, metrics, the state API); KPM_<SERVICE>_PORT overrides. */
const DEFAULT_PORTS: Record<LocalServiceName, number> = {
  state: 8480,
  'boot-worker': 8481,
  watcher: 8482,
  'drunc-gateway': 8483,
};

/** The drunc gateway's gRPC port (drunc's `grpc://host:port`); KPM_DRUNC_GATEWAY_PORT overrides. */
export function gatewayGrpcPort(): number {
  return Number(process.env.KPM_DRUNC_GATEWAY_PORT || 8484);
}

/**
 * KPM_<SERVICE>_PORT; the gateway's is KPM_DRUNC_GATEWAY_HTTP_PORT, as KPM_DRUNC_GATEWAY_PORT
 * is its gRPC port (the setting `gateway.port`).
 */
function httpPortVariable(service: LocalServiceName): string {
  const stem = `KPM_${service.toUpperCase().replace('-', '_')}`;
  return service === 'drunc-gateway' ? `${stem}_HTTP_PORT` : `${stem}_PORT`;
}

/** What `.kpm/stack.env` names the gateway by, for drunc's shells: `grpc://127.0.0.1:<port>`. */
export const GATEWAY_ENV_NAME = 'KPM_DRUNC_GATEWAY';

/**
 * The gateway's default image on the local stack: KPM_DRUNC_GATEWAY_DEFAULT_IMAGE when set (empty
 * keeps the boot-worker's), else the stack's DAQ image (`KPM_REAL_IMAGE`) when it has a real node.
 */
export function gatewayImageEnv(
  stackEnv: Record<string, string | undefined>,
  env: Record<string, string | undefined>,
): { KPM_DRUNC_GATEWAY_DEFAULT_IMAGE?: string } {
  const image = env.KPM_DRUNC_GATEWAY_DEFAULT_IMAGE ?? stackEnv.KPM_REAL_IMAGE;
  return image ? { KPM_DRUNC_GATEWAY_DEFAULT_IMAGE: image } : {};
}

export interface LocalServiceStatus {
  service: LocalServiceName;
  pid: number | null;
  port: number;
  ready: boolean;
}

/**
 * The services as local processes (`kpm services up|down|status`), logs under `.kpm/logs/`: the
 * three, and the drunc gateway, whose address `up` writes into `.kpm/stack.env`.
 */
export class LocalServices {
  port(service: LocalServiceName): number {
    const override = process.env[httpPortVariable(service)];
    return override ? Number(override) : DEFAULT_PORTS[service];
  }

  /** Builds every service that is stale (`nest build`), one after the other; `up` would too. */
  async build(onProgress: (message: string) => void): Promise<void> {
    for (const service of SERVICE_NAMES) await ensureServiceBuilt(service, onProgress);
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
      const image = gatewayImageEnv(stackEnv, process.env).KPM_DRUNC_GATEWAY_DEFAULT_IMAGE;
      if (service === 'drunc-gateway' && image) {
        console.error(
          `kpm services: drunc-gateway boots drunc's processes in ${image} (the stack's DAQ image, on the real node; KPM_DRUNC_GATEWAY_DEFAULT_IMAGE overrides)`,
        );
      }
      daemon.start(process.execPath, [...SERVICE_V8_FLAGS, '--enable-source-maps', entry], {
        cwd: repoRoot(),
        env: {
          ...LOCAL_SERVICE_SETTINGS,
          ...process.env,
          ...stackEnv,
          ...serviceKafkaIdentity(service, stackEnv),
          KPM_HTTP_PORT: String(this.port(service)),
          KPM_HOME: stackPaths.home(),
          ...this.serviceEnv(service, stackEnv),
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
    writeStackEnv({
      ...readStackEnv(),
      [GATEWAY_ENV_NAME]: `grpc://127.0.0.1:${gatewayGrpcPort()}`,
    });
    return this.status();
  }

  async down(): Promise<void> {
    await Promise.all(SERVICE_NAMES.map((service) => new Daemon(service).stop(30_000)));
    const { [GATEWAY_ENV_NAME]: _gone, ...rest } = readStackEnv();
    if (_gone !== undefined) writeStackEnv(rest);
  }

  /**
   * The gateway reads completions from the state service and serves gRPC on its own port; the
   * processes drunc boots through it run the stack's DAQ image, which the real node has (drunc's
   * default image cannot be pulled here), unless KPM_DRUNC_GATEWAY_DEFAULT_IMAGE says otherwise.
   */
  private serviceEnv(
    service: LocalServiceName,
    stackEnv: Record<string, string>,
  ): Record<string, string> {
    if (service !== 'drunc-gateway') return {};
    return {
      KPM_STATE_URL: `http://127.0.0.1:${this.port('state')}`,
      KPM_DRUNC_GATEWAY_PORT: String(gatewayGrpcPort()),
      ...gatewayImageEnv(stackEnv, process.env),
    };
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
