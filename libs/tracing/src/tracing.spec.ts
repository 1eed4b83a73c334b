import { batchOptions, samplerOf } from './sdk';
import { startTracing, tracingEnabled, tracingRequested } from './tracing';

describe('tracingRequested: off unless the OTEL_* variables ask', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_TRACES_EXPORTER: 'console, OTLP' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }, false],
    [{ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, false],
  ])('%j → %s', (env, on) => {
    expect(tracingRequested(env)).toBe(on);
  });

  it('starts nothing when not asked: tracing stays off', () => {
    const tracing = startTracing('test', { env: {} });
    expect(tracing.enabled).toBe(false);
    expect(tracingEnabled()).toBe(false);
  });
});

describe('samplerOf: OTEL_TRACES_SAMPLER', () => {
  it.each([
    [{}, 'ParentBased{root=AlwaysOnSampler'],
    [{ OTEL_TRACES_SAMPLER: 'always_on' }, 'AlwaysOnSampler'],
    [{ OTEL_TRACES_SAMPLER: 'always_off' }, 'AlwaysOffSampler'],
    [
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' },
      'TraceIdRatioBased{0.25}',
    ],
    [{ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }, 'ParentBased{root=AlwaysOffSampler'],
    [{ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' }, 'ParentBased{root=TraceIdRatioBased{1}'],
  ])('%j → %s', (env, described) => {
    expect(samplerOf(env).toString()).toContain(described);
  });

  it.each([
    [
      { OTEL_TRACES_SAMPLER: 'jaeger_remote' },
      'OTEL_TRACES_SAMPLER: "jaeger_remote" is not one kpm knows',
    ],
    [
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' },
      'OTEL_TRACES_SAMPLER_ARG: "2" is not a ratio in [0, 1]',
    ],
    [
      { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'half' },
      'OTEL_TRACES_SAMPLER_ARG: "half"',
    ],
  ])('refuses %j, naming the variable', (env, message) => {
    expect(() => samplerOf(env)).toThrow(message);
  });
});

describe('batchOptions: OTEL_BSP_*', () => {
  it('reads each variable given', () => {
    expect(
      batchOptions({
        OTEL_BSP_SCHEDULE_DELAY: '200',
        OTEL_BSP_EXPORT_TIMEOUT: '1000',
        OTEL_BSP_MAX_QUEUE_SIZE: '4096',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '256',
      }),
    ).toEqual({
      scheduledDelayMillis: 200,
      exportTimeoutMillis: 1000,
      maxQueueSize: 4096,
      maxExportBatchSize: 256,
    });
    expect(batchOptions({ OTEL_BSP_SCHEDULE_DELAY: '' })).toEqual({});
  });

  it.each(['0', '-5', '1.5', 'soon'])('refuses OTEL_BSP_SCHEDULE_DELAY=%s, naming it', (raw) => {
    expect(() => batchOptions({ OTEL_BSP_SCHEDULE_DELAY: raw })).toThrow(
      `OTEL_BSP_SCHEDULE_DELAY: ${JSON.stringify(raw)} is not a positive integer`,
    );
  });
});
