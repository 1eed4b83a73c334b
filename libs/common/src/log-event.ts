/**
 * One log record as klog writes one (`logger.Info("Finished syncing", "key", key)`): an event
 * name — dotted, lower-case, `shard.restored` — and the data as fields, never baked into prose,
 * so an operator filters on `event`, `session`, `partition` … instead of matching text
 * (docs/operations.md lists the events). The service kit's logger writes the object's keys as
 * fields; `message` repeats the event, so a record always has one.
 */
export interface LogFields {
  session?: string;
  process?: string;
  uuid?: string;
  commandId?: string;
  topic?: string;
  partition?: number;
  node?: string;
  exitCode?: number;
  durationMs?: number;
  /** What went wrong: an error's message (errorText), its stack only where one is wanted. */
  error?: string;
  [field: string]: unknown;
}

export interface LogEvent extends LogFields {
  message: string;
  event: string;
}

/** A log call's argument: `logger.warn(logEvent('shard.restore_failed', { partition, error }))`. */
export function logEvent(event: string, fields: LogFields = {}): LogEvent {
  // The name first when the record is read as JSON, and no field can overwrite it.
  const record: LogEvent = { message: event, event, ...fields };
  record.message = event;
  record.event = event;
  return record;
}
