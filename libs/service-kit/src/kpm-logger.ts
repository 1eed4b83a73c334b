/**
 * Logs as JSON lines (`KPM_LOG_FORMAT=json`, docs/design.md §7.5): Nest's JSON console logger
 * plus the command the work serves — `commandId`, `session`, `traceparent` — as fields, so a
 * command can be followed through every service's logs.
 */
import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import { currentCause } from '@kpm/contracts';

export const LOG_LEVELS: LogLevel[] = ['log', 'warn', 'error'];

export class KpmJsonLogger extends ConsoleLogger {
  constructor() {
    super({ json: true, logLevels: LOG_LEVELS });
  }

  protected override getJsonLogObject(
    message: unknown,
    options: Parameters<ConsoleLogger['getJsonLogObject']>[1],
  ): ReturnType<ConsoleLogger['getJsonLogObject']> {
    return { ...super.getJsonLogObject(message, options), ...currentCause() };
  }
}

/** The logger of a service whose settings ask for `format`. */
export function serviceLogger(format: 'text' | 'json'): LogLevel[] | KpmJsonLogger {
  return format === 'json' ? new KpmJsonLogger() : LOG_LEVELS;
}
