import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultStack } from '../default-stack';
import { OtelCollectorComponent, otelcolVersion, otelPorts, otelSpansPath } from './otel-collector';

describe('the stack’s OpenTelemetry Collector', () => {
  let home: string;
  const saved = {
    KPM_HOME: process.env.KPM_HOME,
    KPM_STACK_OTEL: process.env.KPM_STACK_OTEL,
    KPM_OTLP_HTTP_PORT: process.env.KPM_OTLP_HTTP_PORT,
  };

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'kpm-otel-'));
    process.env.KPM_HOME = home;
    delete process.env.KPM_STACK_OTEL;
  });

  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('listens away from the OTLP defaults unless told, and refuses what is not a port', () => {
    expect(otelPorts({})).toEqual({ http: 14318, grpc: 14317 });
    expect(otelPorts({ KPM_OTLP_HTTP_PORT: '24318', KPM_OTLP_GRPC_PORT: '24317' })).toEqual({
      http: 24318,
      grpc: 24317,
    });
    expect(() => otelPorts({ KPM_OTLP_HTTP_PORT: '4318x' })).toThrow(
      'kpm: KPM_OTLP_HTTP_PORT=4318x is not a TCP port',
    );
  });

  it('takes its release from the wrapper module’s go.mod', () => {
    expect(otelcolVersion()).toMatch(/^v0\.\d+\.\d+$/);
  });

  it('receives OTLP on 127.0.0.1 and appends traces to <KPM_HOME>/otel/spans.jsonl', () => {
    const collector = new OtelCollectorComponent({ ports: { http: 24318, grpc: 24317 } });
    expect(collector.endpoint).toBe('http://127.0.0.1:24318');
    expect(collector.spansFile).toBe(join(home, 'otel', 'spans.jsonl'));
    expect(otelSpansPath()).toBe(collector.spansFile);
    expect(collector.config()).toMatchObject({
      receivers: {
        otlp: {
          protocols: {
            http: { endpoint: '127.0.0.1:24318' },
            grpc: { endpoint: '127.0.0.1:24317' },
          },
        },
      },
      exporters: { file: { path: join(home, 'otel', 'spans.jsonl'), append: true } },
      service: {
        pipelines: { traces: { receivers: ['otlp'], exporters: ['file'] } },
        telemetry: { metrics: { level: 'none' } },
      },
    });
  });

  it('is part of the default stack only when asked (option or KPM_STACK_OTEL=1)', async () => {
    const names = async (stack: ReturnType<typeof defaultStack>) =>
      (await stack.status()).map((status) => status.name);
    expect(await names(defaultStack([]))).toEqual([]);
    expect(await names(defaultStack([], { otel: true }))).toEqual(['otelcol']);
    process.env.KPM_STACK_OTEL = '1';
    expect(await names(defaultStack([]))).toEqual(['otelcol']);
    expect(await names(defaultStack([], { otel: false }))).toEqual([]);
  });

  it('stays part of it while it runs, so that `down` stops it unasked', async () => {
    // This process's own pid stands for a running collector: `status` only reads the pid file.
    mkdirSync(join(home, 'run'), { recursive: true });
    writeFileSync(join(home, 'run', 'otelcol.pid'), String(process.pid));
    // Port 1: nothing answers there, not even a collector of another stack on this machine.
    process.env.KPM_OTLP_HTTP_PORT = '1';
    const [status] = await defaultStack([]).status();
    expect(status).toMatchObject({
      name: 'otelcol',
      running: false,
      pid: process.pid,
      endpoint: 'http://127.0.0.1:1',
      detail: 'not answering OTLP',
    });
  });
});
