import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { eventually } from '@kpm/common';
import { readStackEnv } from '@kpm/stack';

/**
 * The spans the stack's OpenTelemetry Collector received (`kpm stack up --otel`), as its file
 * exporter wrote them to KPM_OTEL_SPANS: one OTLP JSON ExportTraceServiceRequest a line, ids as
 * lowercase hex, times as decimal strings of nanoseconds.
 */
export interface OtelSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** The resource attribute `service.name` of the process that sent it ('' if it named none). */
  service: string;
  /** The span's own attributes, as plain values (OTLP's int64 as a number where it fits). */
  attributes: Record<string, AttributeValue>;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  /** OTLP's status: code 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}

export type AttributeValue =
  string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };

/** The spans file of the running stack: KPM_OTEL_SPANS of the environment, else of stack.env. */
export function otelSpansFile(): string {
  const file = process.env.KPM_OTEL_SPANS ?? readStackEnv().KPM_OTEL_SPANS;
  if (!file)
    throw new Error(
      'KPM_OTEL_SPANS unset: is the stack up with its collector (kpm stack up --otel)?',
    );
  return file;
}

/** Every span of the file (none while it does not exist); a line still being written is left. */
export function readSpans(file: string = otelSpansFile()): OtelSpan[] {
  return new SpansReader(file).read();
}

export interface WaitForSpansOptions {
  /** The spans file; default `otelSpansFile()`. */
  file?: string;
  /** How many matching spans to wait for; default 1. */
  atLeast?: number;
  /** For the failure's message; default 'spans'. */
  what?: string;
}

/**
 * Polls the spans file until at least `atLeast` spans satisfy `predicate`, and returns all those
 * that do (in the order they were written). The file is read once, then only what was appended.
 */
export async function waitForSpans(
  predicate: (span: OtelSpan) => boolean,
  timeoutMs = 30_000,
  { file = otelSpansFile(), atLeast = 1, what = 'spans' }: WaitForSpansOptions = {},
): Promise<OtelSpan[]> {
  const reader = new SpansReader(file);
  const matching: OtelSpan[] = [];
  return eventually(
    () => {
      if (reader.rewound()) matching.length = 0;
      matching.push(...reader.read().filter(predicate));
      if (matching.length < atLeast) throw new Error(`${matching.length} so far`);
      return [...matching];
    },
    { what: `${atLeast} ${what} in ${file}`, timeoutMs },
  );
}

/** Reads a JSON-lines file from where it stopped last time; a shrunk (rotated) file from its start. */
class SpansReader {
  private offset = 0;
  private wasRewound = false;

  constructor(private readonly file: string) {}

  /** Whether the last read started the file over (it was rotated or removed). */
  rewound(): boolean {
    return this.wasRewound;
  }

  read(): OtelSpan[] {
    this.wasRewound = false;
    let size: number;
    try {
      size = statSync(this.file).size;
    } catch {
      return [];
    }
    if (size < this.offset) {
      this.offset = 0;
      this.wasRewound = true;
    }
    if (size === this.offset) return [];
    const buffer = Buffer.alloc(size - this.offset);
    const fd = openSync(this.file, 'r');
    let length: number;
    try {
      length = readSync(fd, buffer, 0, buffer.length, this.offset);
    } finally {
      closeSync(fd);
    }
    // Only whole lines: the collector may be writing the next one.
    const end = buffer.subarray(0, length).lastIndexOf(0x0a);
    if (end < 0) return [];
    const text = buffer.subarray(0, end).toString('utf8');
    this.offset += end + 1;
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .flatMap((line) => flatten(JSON.parse(line) as ExportTraceServiceRequest));
  }
}

/** The parts of OTLP's JSON encoding that a span's reader needs. */
interface ExportTraceServiceRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { spans?: SpanJson[] }[];
  }[];
}

interface SpanJson {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: KeyValue[];
  status?: { code?: number; message?: string };
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}

interface KeyValue {
  key: string;
  value?: AnyValue;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  bytesValue?: string;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
}

function flatten(request: ExportTraceServiceRequest): OtelSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    const service = resource['service.name'];
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span): OtelSpan => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        service: typeof service === 'string' ? service : '',
        attributes: attributesOf(span.attributes),
        kind: span.kind ?? 0,
        status: {
          code: span.status?.code ?? 0,
          ...(span.status?.message && { message: span.status.message }),
        },
        startTimeUnixNano: span.startTimeUnixNano,
        endTimeUnixNano: span.endTimeUnixNano,
      })),
    );
  });
}

function attributesOf(list: KeyValue[] = []): Record<string, AttributeValue> {
  return Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));
}

function valueOf(value: AnyValue = {}): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) {
    const number = Number(value.intValue);
    return Number.isSafeInteger(number) ? number : String(value.intValue);
  }
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.bytesValue !== undefined) return value.bytesValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map((item) => valueOf(item));
  if (value.kvlistValue) return attributesOf(value.kvlistValue.values);
  return null;
}
