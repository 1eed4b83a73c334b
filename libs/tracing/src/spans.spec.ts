import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { SpanStatusCode } from '@opentelemetry/api';
import {
  activeTraceparent,
  contextOf,
  inSpan,
  inSpans,
  markSpan,
  SpanKind,
  traceparentOfSpan,
} from './spans';
import { flushTracing, startTracing, tracingEnabled, type Tracing } from './tracing';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const traceparent = `00-${TRACE}-${PARENT}-01`;

describe('off (the default): the work runs as it is', () => {
  it('runs the work, returns its value, makes no span', async () => {
    expect(tracingEnabled()).toBe(false);
    expect(inSpan('x', {}, (span) => (span === undefined ? 42 : 0))).toBe(42);
    await expect(inSpans('x', [traceparent], {}, () => Promise.resolve('y'))).resolves.toBe('y');
    expect(() => markSpan('x', { parent: traceparent })).not.toThrow();
    expect(activeTraceparent()).toBeUndefined();
  });
});

describe('on: spans in the command trace', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;

  beforeAll(() => {
    tracing = startTracing('test', { exporter, instance: 'i-1', env: {} });
  });
  afterAll(() => tracing.shutdown());
  beforeEach(() => exporter.reset());

  async function finished(): Promise<ReadableSpan[]> {
    await flushTracing();
    return exporter.getFinishedSpans();
  }
  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

  it('makes the record’s traceparent the parent, and nests the spans inside it', async () => {
    const inner = await inSpan(
      'process boot',
      { parent: traceparent, kind: SpanKind.CONSUMER },
      () =>
        inSpan('kube POST pods', { kind: SpanKind.CLIENT }, () =>
          Promise.resolve(activeTraceparent()),
        ),
    );
    const [kube, process] = await finished();
    expect([process.name, process.spanContext().traceId, parentOf(process)]).toEqual([
      'process boot',
      TRACE,
      PARENT,
    ]);
    expect([kube.name, kube.spanContext().traceId, parentOf(kube)]).toEqual([
      'kube POST pods',
      TRACE,
      process.spanContext().spanId,
    ]);
    expect(process.kind).toBe(SpanKind.CONSUMER);
    expect(inner).toBe(`00-${TRACE}-${kube.spanContext().spanId}-01`);
    expect(process.resource.attributes).toMatchObject({
      'service.name': 'kpm-test',
      'service.instance.id': 'i-1',
    });
  });

  it('starts a trace of its own without a parent', async () => {
    await inSpan('kpm boot', {}, () => Promise.resolve());
    const [span] = await finished();
    expect(parentOf(span)).toBeUndefined();
    expect(span.spanContext().traceId).not.toBe(TRACE);
  });

  it.each([
    'x',
    `00-${'0'.repeat(32)}-${PARENT}-01`,
    `00-${TRACE}-${'0'.repeat(16)}-01`,
    `ff-${TRACE}-${PARENT}-01`,
  ])('ignores a traceparent %j that names no trace: a root span', async (bad) => {
    inSpan('process', { parent: bad }, () => undefined);
    const [span] = await finished();
    expect(parentOf(span)).toBeUndefined();
  });

  it('records a failure, sync or async, and rethrows it', async () => {
    await expect(inSpan('a', {}, () => Promise.reject(new Error('broker down')))).rejects.toThrow(
      'broker down',
    );
    expect(() =>
      inSpan('b', {}, () => {
        throw new Error('bad');
      }),
    ).toThrow('bad');
    const spans = await finished();
    expect(spans.map((s) => [s.name, s.status.code, s.status.message])).toEqual([
      ['a', SpanStatusCode.ERROR, 'broker down'],
      ['b', SpanStatusCode.ERROR, 'bad'],
    ]);
    expect(spans.map((s) => s.events[0]?.name)).toEqual(['exception', 'exception']);
  });

  it('puts one transaction in the trace of each command its batch carries', async () => {
    const other = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    const seen = await inSpans(
      'transaction',
      [traceparent, undefined, other, traceparent],
      {},
      () => Promise.resolve(activeTraceparent()),
    );
    const spans = await finished();
    expect(spans.map((s) => [s.name, s.spanContext().traceId, parentOf(s)])).toEqual([
      ['transaction', TRACE, PARENT],
      ['transaction', 'a'.repeat(32), 'b'.repeat(16)],
    ]);
    expect(seen).toBe(traceparentOfSpan(spans[0] as never));
  });

  it('marks what just happened, from when it began', async () => {
    const began = new Date(Date.now() - 1500);
    markSpan('publish termination', { parent: traceparent, startTime: began });
    const [span] = await finished();
    expect(parentOf(span)).toBe(PARENT);
    const ms = span.duration[0] * 1000 + span.duration[1] / 1e6;
    expect(ms).toBeGreaterThanOrEqual(1500);
  });

  it('reads a traceparent into a remote parent context', () => {
    expect(contextOf(traceparent)).not.toBe(contextOf(undefined));
  });
});
