/**
 * One trace per command, in a real OpenTelemetry Collector (the stack's, built from the Go module
 * proxy: `kpm stack up --otel`): a Python DAQ component (opentelemetry-sdk, confluent-kafka)
 * boots a process and kills it, each command sent inside a span of its own with that span's
 * `traceparent`; kpm's three services run as their own processes with the standard OTEL_*
 * variables. Each command's trace holds the client's span, the boot-worker's span of the command
 * and its Kubernetes calls inside it, the state service's transaction and the completion — and the
 * pod's termination lands in the trace of the boot that made it.
 */
import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { kwokNodeNames } from '../support/drunc-gateway-harness';
import { eventually } from '@kpm/common';
import { readSpans, waitForSpans, type OtelSpan } from '../support/otel-spans';
import { projectPython, runPython } from '../support/python';
import { ServiceProcess } from '../support/service-process';
import { stackEnv, uniqueTopicPrefix } from '../support/stack-env';

jest.setTimeout(600_000);

const label = `trc-${randomBytes(3).toString('hex')}`;
const prefix = uniqueTopicPrefix('trc');
const session = `${label}-run`;
const services: ServiceProcess[] = [];
let endpoint: string;

interface ClientCommand {
  commandId: string;
  traceId: string;
  spanId: string;
  status: string;
}

beforeAll(async () => {
  endpoint = process.env.KPM_OTLP_ENDPOINT ?? '';
  if (!endpoint) throw new Error('KPM_OTLP_ENDPOINT unset: bring the stack up with --otel');
  const shared = stackEnv();
  const env = {
    KPM_KAFKA_BROKERS: shared.brokers.join(','),
    ...shared.topicReplication,
    KPM_TOPIC_PREFIX: prefix,
    KPM_LABEL_DOMAIN: `${label}.test.daq`,
    KUBECONFIG: shared.kubeconfig!,
    KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
    KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_BSP_SCHEDULE_DELAY: '200',
  };
  for (const service of ['boot-worker', 'watcher', 'state']) {
    const child = new ServiceProcess(service, { ...env, KPM_INSTANCE: `${label}-${service}` });
    services.push(child);
    await child.start(240_000);
  }
}, 600_000);

afterAll(async () => {
  for (const service of services) await service.kill('SIGTERM');
  const config = new KubeConfig();
  config.loadFromFile(stackEnv().kubeconfig!);
  await config
    .makeApiClient(CoreV1Api)
    .deleteNamespace({ name: session })
    .catch(() => undefined);
}, 180_000);

/** Every span of `traceId` once each of `names` (`[service, span name]`) is among them. */
function traceOf(traceId: string, names: Array<[string, string]>): Promise<OtelSpan[]> {
  return eventually(
    () => {
      const spans = readSpans().filter((s) => s.traceId === traceId);
      const missing = names.filter(
        ([svc, n]) => !spans.some((s) => s.service === svc && s.name === n),
      );
      if (missing.length > 0) {
        throw new Error(`missing ${missing.map(([svc, n]) => `${svc}: ${n}`).join(', ')}`);
      }
      return spans;
    },
    { what: `the spans of trace ${traceId}`, timeoutMs: 60_000, everyMs: 250 },
  );
}

function one(spans: OtelSpan[], service: string, name: string): OtelSpan {
  const found = spans.filter((s) => s.service === service && s.name === name);
  expect({ service, name, count: found.length }).toEqual({ service, name, count: 1 });
  return found[0];
}

/** Whether `span` descends from `ancestor` within `spans`. */
function descends(spans: OtelSpan[], span: OtelSpan, ancestor: OtelSpan): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let at: OtelSpan | undefined = span; at; at = byId.get(at.parentSpanId)) {
    if (at.parentSpanId === ancestor.spanId) return true;
  }
  return false;
}

describe('one trace per command, from the client to the completion', () => {
  let boot: ClientCommand;
  let kill: ClientCommand;

  beforeAll(async () => {
    const [node] = await kwokNodeNames();
    const run = await runPython(
      await projectPython(),
      'test/support/python/traced_client.py',
      [session, '--node', node, '--as', 'daq-tracer'],
      240_000,
      {
        KPM_KAFKA_BROKERS: stackEnv().brokers.join(','),
        KPM_TOPIC_PREFIX: prefix,
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      },
    );
    expect({ code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
    ({ boot, kill } = JSON.parse(run.stdout) as { boot: ClientCommand; kill: ClientCommand });
  }, 300_000);

  it("holds the boot: the client's span, the boot-worker's work and Kubernetes calls, the state's transaction, the completion", async () => {
    const spans = await traceOf(boot.traceId, [
      ['daq-python-client', 'daq boot'],
      ['kpm-boot-worker', 'process daq.kpm.command.boot.v1'],
      ['kpm-boot-worker', 'kube POST pods'],
      ['kpm-state', 'transaction'],
      ['kpm-state', 'complete boot'],
    ]);
    const client = one(spans, 'daq-python-client', 'daq boot');
    expect([client.spanId, client.parentSpanId]).toEqual([boot.spanId, '']);
    const worker = one(spans, 'kpm-boot-worker', 'process daq.kpm.command.boot.v1');
    expect(worker.parentSpanId).toBe(client.spanId);
    expect(worker.attributes).toMatchObject({ 'messaging.message.id': boot.commandId });
    const creates = spans.filter((s) => s.name === 'kube POST pods');
    expect(creates.length).toBeGreaterThan(0);
    for (const create of creates) expect(descends(spans, create, worker)).toBe(true);
    expect(creates[0].attributes['http.response.status_code']).toBe(201);
    const transactions = spans.filter((s) => s.service === 'kpm-state' && s.name === 'transaction');
    for (const tx of transactions) expect(tx.parentSpanId).toBe(client.spanId);
    const completion = one(spans, 'kpm-state', 'complete boot');
    expect(completion.attributes).toMatchObject({
      'kpm.command.id': boot.commandId,
      'kpm.command.status': 'succeeded',
      'kpm.session': session,
    });
    // Every span of the trace is the client's or below it: none starts a trace of its own.
    for (const span of spans) {
      expect(span === client || descends(spans, span, client)).toBe(true);
    }
  });

  it("holds the kill, and the pod's termination in the trace of the boot that made it", async () => {
    const spans = await traceOf(kill.traceId, [
      ['daq-python-client', 'daq kill'],
      ['kpm-boot-worker', 'process daq.kpm.command.kill.v1'],
      ['kpm-boot-worker', 'kube DELETE pods'],
      ['kpm-state', 'complete kill'],
    ]);
    const client = one(spans, 'daq-python-client', 'daq kill');
    const worker = one(spans, 'kpm-boot-worker', 'process daq.kpm.command.kill.v1');
    expect(worker.parentSpanId).toBe(client.spanId);
    const deletes = spans.filter((s) => s.name === 'kube DELETE pods');
    for (const del of deletes) expect(descends(spans, del, worker)).toBe(true);
    expect(one(spans, 'kpm-state', 'complete kill').attributes).toMatchObject({
      'kpm.command.id': kill.commandId,
      'kpm.command.status': 'succeeded',
    });
    const [termination] = await waitForSpans(
      (s) => s.traceId === boot.traceId && s.name === 'publish termination',
      60_000,
    );
    expect(termination.service).toBe('kpm-watcher');
    expect(termination.parentSpanId).toBe(boot.spanId);
    expect(termination.attributes).toMatchObject({
      'kpm.session': session,
      'kpm.process': 'ru-01',
    });
  });
});
