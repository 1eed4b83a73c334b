/**
 * kpm's spans. A record's `traceparent` (CloudEvents' distributed tracing extension, kept as it
 * is from the client to the completion: docs/design.md §3.4) is the creation context: the span
 * of the work a record causes is its child, and the spans inside that work (each Kubernetes
 * call, each produce) are children of the active one, through OpenTelemetry's context.
 * Off (tracing.ts), every function here runs the work as it is.
 */
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { tracingEnabled } from './tracing';

export { SpanKind };

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export interface SpanOptions {
  kind?: SpanKind;
  /** When the work began, if before the span is made (markSpan). */
  startTime?: Date;
  attributes?: Attributes;
  /** The creation context: the record's `traceparent`; else the active span, if any. */
  parent?: string;
}

const tracer = () => trace.getTracer('kpm');

/** The context whose remote parent is `traceparent`; the root context for none or a bad one. */
export function contextOf(traceparent: string | undefined): Context {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
  if (!match || match[1] === 'ff' || /^0+$/.test(match[2]) || /^0+$/.test(match[3])) {
    return ROOT_CONTEXT;
  }
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: match[2],
    spanId: match[3],
    traceFlags: parseInt(match[4], 16) & 1,
    isRemote: true,
  });
}

/** `traceparent` of a span, as W3C Trace Context writes it. */
export function traceparentOfSpan(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The active span's `traceparent`, when tracing records one. */
export function activeTraceparent(): string | undefined {
  if (!tracingEnabled()) return undefined;
  const span = trace.getActiveSpan();
  return span && span.spanContext().traceId !== '0'.repeat(32) && span.isRecording()
    ? traceparentOfSpan(span)
    : undefined;
}

/**
 * Runs `work` in a span named `name`: ended when the work settles, an error recorded and its
 * status ERROR. Off, `work` runs with no span (`span` undefined).
 */
export function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span | undefined) => T,
): T {
  if (!tracingEnabled()) return work(undefined);
  const parent = options.parent === undefined ? context.active() : contextOf(options.parent);
  return tracer().startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
    parent,
    (span) => {
      let result: T;
      try {
        result = work(span);
      } catch (error) {
        endFailed(span, error);
        throw error;
      }
      if (result instanceof Promise) {
        return result.then(
          (value: unknown) => {
            span.end();
            return value;
          },
          (error: unknown) => {
            endFailed(span, error);
            throw error;
          },
        ) as T;
      }
      span.end();
      return result;
    },
  );
}

/**
 * Runs `work` once, in one span named `name` under each distinct creation context of
 * `parents` (a transaction that carries several commands' records belongs to each of their
 * traces); under the active context when there is none.
 */
export async function inSpans<T>(
  name: string,
  parents: readonly (string | undefined)[],
  options: Omit<SpanOptions, 'parent'>,
  work: () => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return work();
  const distinct = [...new Set(parents.filter((p): p is string => p !== undefined))];
  if (distinct.length === 0) return inSpan(name, options, () => work());
  const spans = distinct.map((parent) =>
    tracer().startSpan(
      name,
      { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes },
      contextOf(parent),
    ),
  );
  try {
    const value = await context.with(trace.setSpan(context.active(), spans[0]), work);
    for (const span of spans) span.end();
    return value;
  } catch (error) {
    for (const span of spans) endFailed(span, error);
    throw error;
  }
}

/**
 * A span of something that has just happened: from `startTime` (else now, a span of no time of
 * its own: a completion decided) to now.
 */
export function markSpan(name: string, options: SpanOptions): void {
  if (!tracingEnabled()) return;
  const parent = options.parent === undefined ? context.active() : contextOf(options.parent);
  const { kind = SpanKind.INTERNAL, attributes, startTime } = options;
  tracer().startSpan(name, { kind, attributes, startTime }, parent).end();
}

function endFailed(span: Span, error: unknown): void {
  const failure = error instanceof Error ? error : new Error(String(error));
  span.recordException(failure);
  span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
  span.end();
}
