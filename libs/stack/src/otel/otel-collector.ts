import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpCall } from '@kpm/kube';
import type { StackEnv } from '../component';
import { Daemon } from '../daemon';
import { stackPaths } from '../paths';
import { DaemonComponent } from '../kube/daemon-component';
import { startOrRestart } from '../kube/daemon-start';
import { ensureGoModuleBuild, type Progress } from '../kube/go-build';
import { portFromEnv } from '../kube/ports';
import { requiredVersion } from '../kube/versions';

/** The collector's daemon name: its pid file, log and binary are named after it. */
export const OTELCOL_NAME = 'otelcol';

/** The collector's OTLP ports: away from the defaults (4317, 4318) so a collector of the host's stays free. */
export interface OtelPorts {
  http: number;
  grpc: number;
}

export function otelPorts(env: NodeJS.ProcessEnv = process.env): OtelPorts {
  return {
    http: portFromEnv(env, 'KPM_OTLP_HTTP_PORT', 14318),
    grpc: portFromEnv(env, 'KPM_OTLP_GRPC_PORT', 14317),
  };
}

/** The wrapper module under stack/otel pins the collector release; its go.mod is the source of truth. */
export const otelcolModuleDir = (): string => stackPaths.source('otel', 'otelcol');

export function otelcolVersion(): string {
  return requiredVersion(otelcolModuleDir(), 'go.opentelemetry.io/collector/otelcol');
}

/** Where the collector writes the spans it receives: OTLP JSON, one export request a line. */
export function otelSpansPath(): string {
  return join(stackPaths.home(), 'otel', 'spans.jsonl');
}

/** Whether the stack's collector runs (in this KPM_HOME): a stack that was asked for it keeps it. */
export function otelCollectorRunning(): boolean {
  return new Daemon(OTELCOL_NAME).isRunning();
}

export interface OtelCollectorOptions {
  ports?: Partial<OtelPorts>;
  progress?: Progress;
}

/**
 * The OpenTelemetry Collector of the stack (stack/otel/otelcol), built from the Go module proxy:
 * it receives OTLP on 127.0.0.1 (HTTP and gRPC) and appends every trace export to
 * `<KPM_HOME>/otel/spans.jsonl`, for the tests to read (test/support/otel-spans.ts).
 */
export class OtelCollectorComponent extends DaemonComponent {
  readonly ports: OtelPorts;

  constructor(options: OtelCollectorOptions = {}) {
    super(
      OTELCOL_NAME,
      options.progress ?? ((message: string) => process.stderr.write(`kpm: ${message}\n`)),
    );
    this.ports = { ...otelPorts(), ...options.ports };
  }

  /** What `OTEL_EXPORTER_OTLP_ENDPOINT` takes (OTLP over HTTP; the SDK adds `/v1/traces`). */
  get endpoint(): string {
    return `http://127.0.0.1:${this.ports.http}`;
  }

  private binary(): Promise<string> {
    const version = otelcolVersion();
    return ensureGoModuleBuild(
      {
        name: OTELCOL_NAME,
        version,
        moduleDir: otelcolModuleDir(),
        ldflags: [`-X main.version=${version}`],
      },
      this.progress,
    );
  }

  get spansFile(): string {
    return otelSpansPath();
  }

  async prepare(): Promise<void> {
    await this.binary();
  }

  async up(): Promise<StackEnv> {
    const binary = await this.binary();
    mkdirSync(join(stackPaths.home(), 'otel'), { recursive: true });
    const dataDir = stackPaths.data(OTELCOL_NAME);
    mkdirSync(dataDir, { recursive: true });
    // JSON is YAML: the collector's file provider reads it as it is.
    const config = `${JSON.stringify(this.config(), null, 2)}\n`;
    const configFile = join(dataDir, 'config.yaml');
    writeFileSync(configFile, config);
    await startOrRestart(this.daemon, binary, [`--config=file:${configFile}`], this.progress, [
      config,
    ]);
    await this.waitReady(OTELCOL_NAME, () => this.probe(), { timeoutMs: 30000 });
    return { KPM_OTLP_ENDPOINT: this.endpoint, KPM_OTEL_SPANS: this.spansFile };
  }

  /** The collector's configuration: OTLP in, a short batch, the file exporter out; traces only. */
  config(): object {
    return {
      receivers: {
        otlp: {
          protocols: {
            http: { endpoint: `127.0.0.1:${this.ports.http}` },
            grpc: { endpoint: `127.0.0.1:${this.ports.grpc}` },
          },
        },
      },
      processors: { batch: { timeout: '100ms' } },
      exporters: {
        // Appended, so a restart keeps what was received; rotated past 100 MB (the default).
        file: { path: this.spansFile, format: 'json', append: true, flush_interval: '100ms' },
      },
      service: {
        pipelines: { traces: { receivers: ['otlp'], processors: ['batch'], exporters: ['file'] } },
        // No metrics endpoint of its own (it would listen on 8888): only the log, in .kpm/logs.
        telemetry: { metrics: { level: 'none' }, logs: { level: 'info' } },
      },
    };
  }

  protected describe(ready: boolean): string {
    return ready
      ? `receiving OTLP (gRPC :${this.ports.grpc}), spans to ${this.spansFile}, ${otelcolVersion()}`
      : 'not answering OTLP';
  }

  protected override servingUrl(): string {
    return this.endpoint;
  }

  /** An empty ExportTraceServiceRequest is accepted with 200 once the pipeline runs. */
  protected async probe(): Promise<boolean> {
    this.assertRunning();
    const result = await httpCall(`${this.endpoint}/v1/traces`, {
      method: 'POST',
      body: {},
      timeoutMs: 2000,
    });
    return result.status === 200;
  }
}
