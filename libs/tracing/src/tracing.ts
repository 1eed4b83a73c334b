/**
 * kpm's traces (docs/operations.md "Traces"): OpenTelemetry spans exported over OTLP/HTTP,
 * configured by the standard `OTEL_*` variables and off unless asked — an exporter endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or
 * `OTEL_TRACES_EXPORTER=otlp`, and not `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
 * Off, the SDK (sdk.ts) is not even loaded — a CLI's start does not pay for it — and `inSpan`
 * runs its work as it is: tracing costs a branch.
 *
 * On: one tracer provider per process, its resource `service.name` (`OTEL_SERVICE_NAME`, else
 * `kpm-<service>`), `service.instance.id` and `OTEL_RESOURCE_ATTRIBUTES`; spans batched
 * (`OTEL_BSP_SCHEDULE_DELAY`, `_EXPORT_TIMEOUT`, `_MAX_QUEUE_SIZE`, `_MAX_EXPORT_BATCH_SIZE`) to the OTLP exporter (`OTEL_EXPORTER_OTLP_*`: endpoint, headers, timeout);
 * sampled by `OTEL_TRACES_SAMPLER` (`parentbased_always_on` by default, `always_on`,
 * `always_off`, `traceidratio`, `parentbased_traceidratio`, `parentbased_always_off`, with
 * `OTEL_TRACES_SAMPLER_ARG`); the context kept across awaits by AsyncLocalStorage.
 */
import { context, trace } from '@opentelemetry/api';
import type { SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Env } from './env';

export type { Env };

/** Whether the environment asks for traces. */
export function tracingRequested(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.includes('none')) return false;
  if (exporters.includes('otlp')) return true;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export interface Tracing {
  readonly enabled: boolean;
  /** Exports what is buffered and stops; the services call it as they stop. */
  shutdown(): Promise<void>;
}

let provider: TracerProvider | undefined;

/** Whether spans are being recorded in this process. */
export function tracingEnabled(): boolean {
  return provider !== undefined;
}

const OFF: Tracing = { enabled: false, shutdown: () => Promise.resolve() };

/**
 * Starts tracing for `service` when the environment asks (once per process; a second call
 * returns the running one). `exporter` replaces OTLP (tests).
 */
export function startTracing(
  service: string,
  options: { instance?: string; env?: Env; exporter?: SpanExporter } = {},
): Tracing {
  const env = options.env ?? process.env;
  if (provider) return running(provider);
  if (!options.exporter && !tracingRequested(env)) return OFF;
  // Loaded here, not at the top: only a process that traces pays for the SDK's ~150 ms of requires.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('./sdk') as typeof import('./sdk');
  provider = sdk.tracerProvider(service, env, options);
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(sdk.contextManager());
  return running(provider);
}

function running(current: TracerProvider): Tracing {
  return {
    enabled: true,
    shutdown: async () => {
      if (provider !== current) return;
      provider = undefined;
      await current.shutdown();
      trace.disable();
      context.disable();
    },
  };
}

/** Exports what is buffered and stops the running tracing, if any (a service's shutdown). */
export async function stopTracing(): Promise<void> {
  if (provider) await running(provider).shutdown();
}

/** Exports the spans ended so far (tests read their exporter after it). */
export async function flushTracing(): Promise<void> {
  await provider?.forceFlush();
}
