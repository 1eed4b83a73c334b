/**
 * Commands as records: validated with the contract classes first (users get the server's own
 * errors before anything is published), then wrapped in a CloudEvent whose id is the command id
 * and whose subject (the record key) is the session.
 */
import {
  buildEvent,
  currentTraceparent,
  encodeEvent,
  MAX_RECORD_BYTES,
  typeEntry,
  validateData,
  type CommandType,
  type EncodedRecord,
  type EventDataMap,
  type KpmEvent,
} from '@kpm/contracts';
import { activeTraceparent } from '@kpm/tracing';
import { InvalidCommandError } from './errors';

/**
 * The subject of a command that names no session (`ps` of everything, a query by uuid whose
 * session is unknown). The services read the session from the data, never from the subject.
 */
export const ALL_SESSIONS_SUBJECT = '*';

export interface CommandRecordInput<K extends CommandType> {
  type: K;
  data: unknown;
  commandId: string;
  /** A URI-reference naming the sender, e.g. `/kpm/cli/host1`. */
  source: string;
  /** The session when the data does not name one itself (a query without `session`). */
  fallbackSession?: string;
}

export interface CommandRecord<K extends CommandType> {
  event: KpmEvent<K>;
  record: EncodedRecord;
  session: string;
}

/** Throws {@link InvalidCommandError} naming every bad field. */
export function validCommandData<K extends CommandType>(type: K, data: unknown): EventDataMap[K] {
  const checked = validateData(typeEntry(type).dataClass, data);
  if (!checked.ok) throw new InvalidCommandError(type, checked.errors);
  return checked.value as EventDataMap[K];
}

export function commandRecord<K extends CommandType>(
  input: CommandRecordInput<K>,
): CommandRecord<K> {
  const data = validCommandData(input.type, input.data);
  const session =
    typeEntry(input.type).sessionOf?.(data) ?? input.fallbackSession ?? ALL_SESSIONS_SUBJECT;
  const event = buildEvent<K>({
    type: input.type,
    id: input.commandId,
    source: input.source,
    subject: session,
    data,
    // The trace the caller runs in; else the span the caller's tracing has open (the CLI's
    // command, the gateway's RPC): kpm's services then trace the command inside it.
    traceparent: currentTraceparent() ?? activeTraceparent(),
  });
  const record = encodeEvent(event as KpmEvent);
  if (record.value.length > MAX_RECORD_BYTES) {
    throw new InvalidCommandError(input.type, [
      {
        path: '(record)',
        message: `is ${record.value.length} bytes, at most ${MAX_RECORD_BYTES} are accepted`,
      },
    ]);
  }
  return { event, record, session };
}
