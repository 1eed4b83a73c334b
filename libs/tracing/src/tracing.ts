/**
 * kpm's traces (docs/operations.md "Traces"): OpenTelemetry spans exported over OTLP/HTTP,
 * configured by the standard `OTEL_*` variables and off unless asked — an exporter endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or
 * `OTEL_TRACES_EXPORTER=otlp`, and not `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
 * Off, nothing is loaded and `inSpan` runs its work as it is: tracing costs a branch.
 *
 * On: one tracer provider per process, its resource `service.name` (`OTEL_SERVICE_NAME`, else
 * `kpm-<service>`), `service.instance.id` and `OTEL_RESOURCE_ATTRIBUTES`; spans batched
 * (`OTEL_BSP_SCHEDULE_DELAY`, `_EXPORT_TIMEOUT`, `_MAX_QUEUE_SIZE`, `_MAX_EXPORT_BATCH_SIZE`) to the OTLP exporter (`OTEL_EXPORTER_OTLP_*`: endpoint, headers, timeout);
 * sampled by `OTEL_TRACES_SAMPLER` (`parentbased_always_on` by default, `always_on`,
 * `always_off`, `traceidratio`, `parentbased_traceidratio`, `parentbased_always_off`, with
 * `OTEL_TRACES_SAMPLER_ARG`); the context kept across awaits by AsyncLocalStorage.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type BatchSpanProcessorOptions,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';

export type Env = Record<string, string | undefined>;

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

/** The sampler `OTEL_TRACES_SAMPLER` names; an unknown one is refused, naming it. */
export function samplerOf(env: Env): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on').trim().toLowerCase();
  const ratio = (): number => {
    const raw = env.OTEL_TRACES_SAMPLER_ARG;
    const value = raw === undefined || raw === '' ? 1 : Number(raw);
    if (!(value >= 0 && value <= 1)) {
      throw new Error(`OTEL_TRACES_SAMPLER_ARG: ${JSON.stringify(raw)} is not a ratio in [0, 1]`);
    }
    return value;
  };
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      throw new Error(
        `OTEL_TRACES_SAMPLER: ${JSON.stringify(name)} is not one kpm knows (always_on, ` +
          'always_off, traceidratio, parentbased_always_on, parentbased_always_off, ' +
          'parentbased_traceidratio)',
      );
  }
}

/** The batch processor's `OTEL_BSP_*` settings; a value that is not a positive integer is refused. */
export function batchOptions(env: Env): Omit<BatchSpanProcessorOptions, 'exporter'> {
  const names = {
    scheduledDelayMillis: 'OTEL_BSP_SCHEDULE_DELAY',
    exportTimeoutMillis: 'OTEL_BSP_EXPORT_TIMEOUT',
    maxQueueSize: 'OTEL_BSP_MAX_QUEUE_SIZE',
    maxExportBatchSize: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
  } as const;
  const out: Record<string, number> = {};
  for (const [option, name] of Object.entries(names)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value <= 0) {
      throw new Error(`${name}: ${JSON.stringify(raw)} is not a positive integer`);
    }
    out[option] = value;
  }
  return out;
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
  const detected = envDetector.detect();
  const resource = resourceFromAttributes({
    'service.name': env.OTEL_SERVICE_NAME || `kpm-${service}`,
    'service.namespace': 'kpm',
    ...(options.instance ? { 'service.instance.id': options.instance } : {}),
  }).merge(resourceFromAttributes(detected.attributes ?? {}));
  provider = new TracerProvider({
    resource,
    sampler: samplerOf(env),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: options.exporter ?? new OTLPTraceExporter(),
        ...batchOptions(env),
      }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
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
