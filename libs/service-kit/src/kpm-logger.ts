/**
 * Every service's log (docs/design.md §7.5): pino under Nest's LoggerService, with levels
 * (`logLevel`), the service and replica, the Nest context, and the command the work serves —
 * `commandId`, `session`, `traceparent` and its `traceId` and `spanId` (trace-context.ts
 * `withCause`) — as fields, so a command can be followed through every service's logs. A call
 * logs an event and its fields (`logEvent`, @kpm/common). `logFormat: json` writes one JSON
 * object per line (what the deploy kit sets); `text`, the default, one readable line — the
 * event, then its fields as `key=value` — coloured on a terminal.
 */
import type { LoggerService } from '@nestjs/common';
import { activeTraceparent } from '@kpm/tracing';
import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import { build as prettyStream } from 'pino-pretty';
import { currentCause, TRACEPARENT, type Cause } from '@kpm/contracts';

export interface LogSettings {
  logFormat: 'text' | 'json';
  logLevel?: Level;
  service?: string;
  instance?: string;
}

/** Nest's log methods on pino's levels (Nest's `log` is `info`, its `verbose` is `trace`). */
export class KpmLogger implements LoggerService {
  constructor(readonly pino: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  /** Nest passes the context last, and an error's stack before it. */
  private write(level: Level, message: unknown, rest: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const strings = rest.filter((r): r is string => typeof r === 'string');
    const context = strings.length > 0 ? strings[strings.length - 1] : undefined;
    const stack = strings.length > 1 ? strings[0] : undefined;
    const fields = { ...(context ? { context } : {}), ...(stack ? { stack } : {}) };
    if (message instanceof Error) this.pino[level]({ ...fields, err: message }, message.message);
    else if (typeof message === 'object' && message !== null)
      this.pino[level]({ ...fields, ...message });
    else this.pino[level](fields, String(message));
  }
}

/**
 * The logger of a service under its settings (`logFormat`, `logLevel`); `destination` for tests.
 * A bare format is read as settings of that format.
 */
export function serviceLogger(
  settings: LogSettings | LogSettings['logFormat'],
  destination?: DestinationStream,
): KpmLogger {
  const {
    logFormat,
    logLevel = 'info',
    service,
    instance,
  } = typeof settings === 'string' ? { logFormat: settings } : settings;
  const options = {
    level: logLevel,
    messageKey: 'message',
    base: { ...(service ? { service } : {}), ...(instance ? { instance } : {}) },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    mixin: () => causeFields(currentCause()),
  };
  return new KpmLogger(pino(options, destination ?? streamOf(logFormat)));
}

/**
 * The cause's fields, with the trace id and span id beside them: `traceId` is what a tracing
 * backend searches by, `traceparent` what a record carries. The span is the one open when the
 * line is written if tracing is on (`active`, @kpm/tracing), else the record's parent span.
 */
export function causeFields(
  cause: Cause,
  active: string | undefined = activeTraceparent(),
): Cause & { traceId?: string; spanId?: string } {
  const ids = [active, cause.traceparent].find((t) => t !== undefined && TRACEPARENT.test(t));
  if (!ids) return cause;
  const [, traceId, spanId] = ids.split('-');
  return { ...cause, traceId, spanId };
}

/** Not repeated on a terminal line: pino's, the replica's, the context's (shown first), the event's. */
const UNSHOWN = new Set([
  'pid',
  'hostname',
  'service',
  'instance',
  'context',
  'level',
  'time',
  'message',
  'event',
  'traceparent',
]);

/** Shown last on a terminal line, after the event's own fields: the command's. */
const CAUSE = ['commandId', 'session', 'traceId', 'spanId'];

/**
 * A terminal line: `[context] event key=value …`, a value quoted when it holds a space, a quote or
 * an `=`, an object as JSON. Every field of the JSON line shows: the event's in the order the call
 * gave them, then the command's.
 */
export function textLine(record: Record<string, unknown>): string {
  const context = typeof record.context === 'string' ? `[${record.context}] ` : '';
  const keys = Object.keys(record).filter((key) => !UNSHOWN.has(key) && !CAUSE.includes(key));
  const fields = [...keys, ...CAUSE]
    .filter((key) => record[key] !== undefined)
    .map((key) => `${key}=${fieldText(key, record[key])}`);
  return [`${context}${String(record.message)}`, ...fields].join(' ');
}

function fieldText(key: string, value: unknown): string {
  if (key === 'err' && typeof value === 'object' && value !== null)
    return fieldText('error', (value as { message?: unknown }).message);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return typeof value === 'string' && /[\s"=]/.test(text) ? JSON.stringify(text) : text;
}

function streamOf(format: LogSettings['logFormat']): DestinationStream {
  if (format === 'json') return pino.destination({ dest: 1, sync: true });
  return textStream();
}

/** The `text` format's stream: one `textLine` a record, to stdout (coloured on a terminal). */
export function textStream(destination?: NodeJS.WritableStream): DestinationStream {
  return prettyStream({
    sync: true,
    ...(destination ? { destination } : {}),
    colorize: !destination && Boolean(process.stdout.isTTY),
    messageKey: 'message',
    translateTime: 'SYS:HH:MM:ss.l',
    messageFormat: (record) => textLine(record),
    hideObject: true,
  });
}
