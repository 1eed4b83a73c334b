import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, OtelCollectorComponent, type StackEnv } from '@kpm/stack';
import { readSpans, waitForSpans } from '../support/otel-spans';
import { freePort } from '../support/service-process';

/**
 * The stack's OpenTelemetry Collector on its own (stack/otel/otelcol, built from the Go module
 * proxy on first use — minutes — then from the tool cache): in a KPM_HOME of this suite's, on
 * ports of its own, so it needs nothing of the running stack and leaves its collector alone. A
 * span sent over OTLP/HTTP JSON comes back through test/support/otel-spans.ts.
 */

// A cold build of the collector takes minutes on 2 cores (stack/README.md).
const BUILD_TIMEOUT_MS = 20 * 60_000;
jest.setTimeout(60_000);

const savedHome = process.env.KPM_HOME;
let home: string;
let collector: OtelCollectorComponent;
let env: StackEnv;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'kpm-otel-test-'));
  process.env.KPM_HOME = home;
  collector = new OtelCollectorComponent({
    ports: { http: await freePort(), grpc: await freePort() },
    progress: (message) => process.stdout.write(`[otelcol] ${message}\n`),
  });
  env = await collector.up();
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await collector?.down();
  if (savedHome === undefined) delete process.env.KPM_HOME;
  else process.env.KPM_HOME = savedHome;
  rmSync(home, { recursive: true, force: true });
});

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

/** One span of `service` in a hand-made ExportTraceServiceRequest, as an OTLP/HTTP exporter posts it. */
function exportRequest(span: {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}): object {
  const start = BigInt(Date.now()) * 1_000_000n;
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: span.service } }] },
        scopeSpans: [
          {
            scope: { name: 'kpm-test' },
            spans: [
              {
                traceId: span.traceId,
                spanId: span.spanId,
                ...(span.parentSpanId && { parentSpanId: span.parentSpanId }),
                name: span.name,
                kind: 2,
                startTimeUnixNano: String(start),
                endTimeUnixNano: String(start + 1_500_000n),
                attributes: [
                  { key: 'kpm.session', value: { stringValue: 'otel-test' } },
                  { key: 'kpm.replicas', value: { intValue: '3' } },
                  { key: 'kpm.forced', value: { boolValue: true } },
                  {
                    key: 'kpm.apps',
                    value: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } },
                  },
                ],
                status: { code: 2, message: 'killed' },
              },
            ],
          },
        ],
      },
    ],
  };
}

async function postTraces(body: object): Promise<Response> {
  return fetch(`${env.KPM_OTLP_ENDPOINT}/v1/traces`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}

it('writes the endpoint and the spans file of this KPM_HOME into the stack env', async () => {
  expect(env).toEqual({
    KPM_OTLP_ENDPOINT: `http://127.0.0.1:${collector.ports.http}`,
    KPM_OTEL_SPANS: join(home, 'otel', 'spans.jsonl'),
  });
  const status = await collector.status();
  expect(status).toMatchObject({ name: 'otelcol', running: true, endpoint: env.KPM_OTLP_ENDPOINT });
  expect(status.detail).toContain(env.KPM_OTEL_SPANS);
});

it('receives a span over OTLP/HTTP JSON and writes it where otel-spans.ts reads it back', async () => {
  const span = {
    service: 'kpm-otel-test',
    traceId: hex(16),
    spanId: hex(8),
    parentSpanId: hex(8),
    name: 'boot test-session',
  };
  const response = await postTraces(exportRequest(span));
  expect(response.status).toBe(200);
  const [received, ...more] = await waitForSpans((s) => s.traceId === span.traceId, 15_000, {
    file: env.KPM_OTEL_SPANS,
  });
  expect(more).toEqual([]);
  expect(received).toMatchObject({
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: 'boot test-session',
    service: 'kpm-otel-test',
    kind: 2,
    status: { code: 2, message: 'killed' },
    attributes: {
      'kpm.session': 'otel-test',
      'kpm.replicas': 3,
      'kpm.forced': true,
      'kpm.apps': ['a', 'b'],
    },
  });
  expect(BigInt(received.endTimeUnixNano) - BigInt(received.startTimeUnixNano)).toBe(1_500_000n);
});

it('refuses what is not OTLP, and writes nothing for it', async () => {
  const before = readSpans(env.KPM_OTEL_SPANS).length;
  const refused = await postTraces({ resourceSpans: [{ scopeSpans: [{ spans: 'no' }] }] });
  expect(refused.status).toBe(400);
  // A root span sent after the refused request: once it is in the file, so would that one be.
  const traceId = hex(16);
  const root = { service: 'kpm-otel-test', traceId, spanId: hex(8), name: 'kill test-session' };
  expect((await postTraces(exportRequest(root))).status).toBe(200);
  const [received] = await waitForSpans((s) => s.traceId === traceId, 15_000, {
    file: env.KPM_OTEL_SPANS,
  });
  expect(received.parentSpanId).toBe('');
  expect(readSpans(env.KPM_OTEL_SPANS)).toHaveLength(before + 1);
});

it('stops on down, leaving no process, and keeps the spans it wrote for the next up', async () => {
  const before = readSpans(env.KPM_OTEL_SPANS).length;
  expect(before).toBeGreaterThanOrEqual(2);
  const pid = (await collector.status()).pid;
  expect(pid).toBeDefined();
  await collector.down();
  expect(isAlive(pid!)).toBe(false);
  expect(existsSync(join(home, 'run', 'otelcol.pid'))).toBe(false);
  expect(await collector.status()).toMatchObject({ running: false, detail: 'not running' });

  await collector.up();
  const traceId = hex(16);
  const again = { service: 'kpm-otel-test', traceId, spanId: hex(8), name: 'boot again' };
  expect((await postTraces(exportRequest(again))).status).toBe(200);
  await waitForSpans((s) => s.traceId === traceId, 15_000, { file: env.KPM_OTEL_SPANS });
  expect(readSpans(env.KPM_OTEL_SPANS)).toHaveLength(before + 1);
});
