/**
 * Deterministic ids (docs/design.md §3.2): every id derives from the inputs that caused the event,
 * never from the clock or a random source. A service that crashes and re-processes a record
 * therefore re-emits events with the ids it used the first time, and consumers de-duplicate by id.
 *
 * Ids are UUIDv5 (SHA-1 name-based) under a fixed kpm namespace. Changing the namespace or the
 * way parts are joined changes every id: don't.
 */
import { v5 as uuidv5 } from 'uuid';

/** kpm's UUIDv5 namespace (itself a fixed random v4 uuid, chosen once). */
export const KPM_ID_NAMESPACE = '9c22960e-1577-46fc-85c5-1cfecc5ee838';

/**
 * The id of an event caused by `parts`, e.g. `eventId('process.booted', commandId, uuid)`.
 * Parts are joined as a JSON array, so `('a.b', 'c')` and `('a', 'b.c')` differ.
 */
export function eventId(...parts: string[]): string {
  return uuidv5(JSON.stringify(parts), KPM_ID_NAMESPACE);
}

/** The uuid of the `index`-th process of a boot that gave none: a redelivered boot is a no-op. */
export function processUuid(commandId: string, index: number): string {
  return eventId('process-uuid', commandId, String(index));
}

/** The id of a termination record: one per pod (restart reuses the uuid, not the pod uid). */
export function terminationEventId(podUid: string): string {
  return eventId('termination', podUid);
}

/** The id of the single completion of a command. */
export function completionEventId(commandId: string): string {
  return eventId('completion', commandId);
}

/** The id of the dead letter of the record at `topic`/`partition`/`offset`. */
export function deadLetterEventId(topic: string, partition: number, offset: string): string {
  return eventId('dead-letter', topic, String(partition), offset);
}
