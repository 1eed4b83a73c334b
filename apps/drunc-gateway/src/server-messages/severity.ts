/**
 * drunc's severities as the gateway's log levels. drunc's run control server logs a
 * LogOnServerRequest with the Python logger method its severity names, lower-cased
 * (`getattr(self.log, level)`), and answers NOT_EXECUTED_NOT_IMPLEMENTED for a severity that
 * names none: these are the names of Python's logging methods, each on the nearest of the
 * gateway's levels.
 */
export type ServerLogLevel = 'debug' | 'log' | 'warn' | 'error' | 'fatal';

const LEVELS: Readonly<Record<string, ServerLogLevel>> = {
  debug: 'debug',
  info: 'log',
  warning: 'warn',
  warn: 'warn',
  error: 'error',
  exception: 'error',
  critical: 'fatal',
  fatal: 'fatal',
};

/** The level of a drunc severity (any case), or undefined for one drunc's run control does not log. */
export function levelOf(severity: string): ServerLogLevel | undefined {
  const key = severity.toLowerCase();
  return Object.hasOwn(LEVELS, key) ? LEVELS[key] : undefined;
}

export const KNOWN_SEVERITIES = Object.keys(LEVELS).map((s) => s.toUpperCase());
