/**
 * The OpenTelemetry SDK as kpm configures it from `OTEL_*` (tracing.ts says which): loaded only
 * when tracing starts.
 */
import type { ContextManager } from '@opentelemetry/api';
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
import type { Env } from './env';

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

/** The provider for `service`: its resource, sampler and batched exporter (OTLP unless given). */
export function tracerProvider(
  service: string,
  env: Env,
  options: { instance?: string; exporter?: SpanExporter },
): TracerProvider {
  const detected = envDetector.detect();
  const resource = resourceFromAttributes({
    'service.name': env.OTEL_SERVICE_NAME || `kpm-${service}`,
    'service.namespace': 'kpm',
    ...(options.instance ? { 'service.instance.id': options.instance } : {}),
  }).merge(resourceFromAttributes(detected.attributes ?? {}));
  return new TracerProvider({
    resource,
    sampler: samplerOf(env),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: options.exporter ?? new OTLPTraceExporter(),
        ...batchOptions(env),
      }),
    ],
  });
}

/** The context kept across awaits by AsyncLocalStorage. */
export function contextManager(): ContextManager {
  return new AsyncLocalStorageContextManager().enable();
}
