/**
 * Every service's log (docs/design.md §7.5): pino under Nest's LoggerService, with levels
 * (`logLevel`), the service and replica, the Nest context, and the command the work serves —
 * `commandId`, `session`, `traceparent` (trace-context.ts `withCause`) — as fields, so a command
 * can be followed through every service's logs. `logFormat: json` writes one JSON object per
 * line (what the deploy kit sets); `text`, the default, one readable line, coloured on a terminal.
 */
import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import { build as prettyStream } from 'pino-pretty';
import { currentCause } from '@kpm/contracts';

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
    mixin: () => currentCause(),
  };
  return new KpmLogger(pino(options, destination ?? streamOf(logFormat)));
}

function streamOf(format: LogSettings['logFormat']): DestinationStream {
  if (format === 'json') return pino.destination({ dest: 1, sync: true });
  return prettyStream({
    sync: true,
    colorize: Boolean(process.stdout.isTTY),
    messageKey: 'message',
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service,instance,context',
    messageFormat: '{if context}[{context}] {end}{message}',
    singleLine: true,
  });
}
