/**
 * CloudEvents' distributed-tracing extension (docs/design.md §3.4): a command's `traceparent`
 * (W3C Trace Context) is carried to every record it causes. Services run the work a record
 * causes inside `withTrace(traceparent, …)`; `buildEvent` stamps every event built there, so no
 * handler has to pass the trace along by hand.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** W3C Trace Context `traceparent`: version-traceid-parentid-flags, lower-case hex. */
export const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The command a piece of work serves: its trace, and for JSON logs its id and session. */
export interface Cause {
  traceparent?: string;
  commandId?: string;
  session?: string;
}

const current = new AsyncLocalStorage<Cause>();

/** Runs `work` on behalf of `cause`: its events carry the trace, its logs the command's fields. */
export function withCause<T>(cause: Cause, work: () => T): T {
  return current.run(cause, work);
}

/** Runs `work` with `traceparent` as the trace of every event built inside it. */
export function withTrace<T>(traceparent: string | undefined, work: () => T): T {
  return current.run({ ...current.getStore(), traceparent }, work);
}

/** The cause of the work running now (empty outside any). */
export function currentCause(): Cause {
  return current.getStore() ?? {};
}

/** The trace of the work running now, if any. */
export function currentTraceparent(): string | undefined {
  return current.getStore()?.traceparent;
}

/** An event's `traceparent` extension, if it carries a valid one. */
export function traceparentOf(event: object | undefined): string | undefined {
  const value = (event as { traceparent?: unknown } | undefined)?.traceparent;
  return typeof value === 'string' && TRACEPARENT.test(value) ? value : undefined;
}

/** The 32-hex trace id of a `traceparent`. */
export function traceIdOf(traceparent: string): string {
  return traceparent.split('-')[1];
}

/**
 * A Kafka record's `traceparent`: the `ce_traceparent` header of a binary-mode record, else the
 * extension of the structured event in its value; undefined when it carries none (or is not
 * JSON). For tracing, which reads it only when on: it parses the value.
 */
export function recordTraceparent(
  value: Buffer | null,
  headers: Record<string, string> = {},
): string | undefined {
  const header = headers.ce_traceparent;
  if (header !== undefined) return TRACEPARENT.test(header) ? header : undefined;
  if (value === null) return undefined;
  try {
    return traceparentOf(JSON.parse(value.toString('utf8')) as object);
  } catch {
    return undefined;
  }
}
