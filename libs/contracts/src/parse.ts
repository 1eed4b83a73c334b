/**
 * The one way every consumer reads a record: bytes → validated CloudEvent, or a verdict that
 * says what to do with it.
 *
 * - `not-a-cloudevent`: not JSON, not an object, or without CloudEvents' required attributes.
 *   Nobody can answer it (there is no id to answer to): the consumer dead-letters it.
 * - `invalid`: a CloudEvent with a known id whose type, attributes or data are wrong. The
 *   consumer answers it (`command.rejected` for commands), naming every field and reason.
 *
 * The work is bounded by kpm's limits, not by the input (docs/design.md §6.7): the size is
 * checked before the JSON is parsed, an `id` too long to answer makes the record unusable, the
 * other attributes are echoed only as bounded, sanitised copies, and at most 100 field errors
 * are listed.
 */
import {
  CLOUDEVENTS_SPEC_VERSION,
  CloudEventAttributes,
  EXTENSION_ATTRIBUTE,
  REQUIRED_ATTRIBUTES,
} from './envelope';
import { BINARY_ATTRIBUTE_PREFIX, binaryModeEvent, isBinaryMode } from './binary-mode';
import { isEventType, typeEntry, typesOfTopic, type KpmEvent, type TypeEntry } from './registry';
import { MAX_RECORD_BYTES, TOPIC_IDS } from './topics';
import { boundedText, ENVELOPE_LIMITS } from './validation/bounded-text';
import {
  boundedFieldErrors,
  validateData,
  type FieldError,
  type Validated,
} from './validation/validate';

/**
 * What is known of an invalid event's envelope, to address the answer to it: the id as sent
 * (at most 256 characters, else the record is not usable), the rest as bounded, sanitised
 * copies, safe to echo in a rejection, a broadcast or a log line.
 */
export interface EnvelopeSummary {
  id: string;
  type: string;
  source: string;
  subject?: string;
}

export type ParseResult =
  | { ok: true; event: KpmEvent }
  | { ok: false; kind: 'not-a-cloudevent'; reason: string }
  | { ok: false; kind: 'invalid'; envelope: EnvelopeSummary; errors: FieldError[] };

export interface ParseOptions {
  /** Types accepted here; any other type is `invalid` at path `type`. */
  expectedTypes?: readonly string[];
  /** The topic the record came from (`kpm.commands`); its types are expected if `expectedTypes` is absent. */
  topic?: string;
  /** Larger records are not used (dead-lettered), unparsed; default {@link MAX_RECORD_BYTES}. */
  maxBytes?: number;
  /**
   * The record's key, on a topic keyed by session: it must equal the subject (else `invalid`
   * at path `key`), since the key decides the partition and so which instance owns the session.
   */
  key?: string | null;
  /** The record's headers: with `ce_` attribute headers the record is in binary mode. */
  headers?: Readonly<Record<string, string>>;
}

/** The context attributes kpm knows; other top-level names must be extension attributes. */
const ATTRIBUTES = new Set([
  'specversion',
  'id',
  'source',
  'type',
  'time',
  'subject',
  'datacontenttype',
  'dataschema',
]);
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function parseRecord(value: Buffer | null, options: ParseOptions = {}): ParseResult {
  const binary = isBinaryMode(options.headers);
  if (value === null && !binary) return notCloudEvent('the record has no value (a tombstone)');
  const maxBytes = options.maxBytes ?? MAX_RECORD_BYTES;
  const bytes = value?.length ?? 0;
  if (bytes > maxBytes) {
    return notCloudEvent(`the record is ${bytes} bytes, at most ${maxBytes} are accepted`);
  }
  const read = binary ? readBinaryEnvelope(value, options.headers!) : readStructured(value!);
  if (!read.ok) return notCloudEvent(read.reason);
  const { raw, envelope } = read;
  const errors = keyErrors(options.key, raw.subject);
  const data = checkEvent(raw, options, read.dataError);
  if (!data.ok) return invalid(envelope, [...errors, ...data.errors]);
  if (errors.length > 0) return invalid(envelope, errors);
  return { ok: true, event: { ...raw, data: data.value } as KpmEvent };
}

type ReadEnvelope =
  | { ok: true; raw: Record<string, unknown>; envelope: EnvelopeSummary; dataError?: string }
  | { ok: false; reason: string };

/** Structured mode: the value is one JSON object holding the attributes and `data`. */
function readStructured(value: Buffer): ReadEnvelope {
  let json: unknown;
  try {
    json = JSON.parse(utf8.decode(value));
  } catch (e) {
    return { ok: false, reason: `not UTF-8 JSON: ${(e as Error).message}` };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    const kind = Array.isArray(json) ? 'an array' : json === null ? 'null' : typeof json;
    return { ok: false, reason: `not a JSON object but ${kind}` };
  }
  return envelopeOf(json as Record<string, unknown>, (name) => `"${name}"`);
}

/** Binary mode: attributes in `ce_` headers, the value is the data. */
function readBinaryEnvelope(
  value: Buffer | null,
  headers: Readonly<Record<string, string>>,
): ReadEnvelope {
  const { raw, dataError } = binaryModeEvent(value, headers);
  const read = envelopeOf(raw, (name) => `"${name}" (header ${BINARY_ATTRIBUTE_PREFIX}${name})`);
  return read.ok && dataError !== undefined ? { ...read, dataError } : read;
}

/** CloudEvents' required attributes, in a version kpm speaks, with an id kpm can answer. */
function envelopeOf(
  raw: Record<string, unknown>,
  attribute: (name: string) => string,
): ReadEnvelope {
  const missing = REQUIRED_ATTRIBUTES.find(
    (name) => typeof raw[name] !== 'string' || raw[name] === '',
  );
  if (missing) {
    return { ok: false, reason: `missing the CloudEvents attribute ${attribute(missing)}` };
  }
  if (raw.specversion !== CLOUDEVENTS_SPEC_VERSION) {
    const version = boundedText(
      JSON.stringify(raw.specversion) ?? 'undefined',
      ENVELOPE_LIMITS.type,
    );
    return { ok: false, reason: `CloudEvents specversion ${version} is not supported (only 1.0)` };
  }
  const id = raw.id as string;
  if (id.length > ENVELOPE_LIMITS.id) {
    const reason = `the CloudEvents attribute "id" is ${id.length} characters, at most ${ENVELOPE_LIMITS.id}: it cannot be answered`;
    return { ok: false, reason };
  }
  return { ok: true, raw, envelope: summary(raw) };
}

/** Bounded, sanitised copies of the attributes an answer echoes. */
function summary(raw: Record<string, unknown>): EnvelopeSummary {
  return {
    id: raw.id as string,
    type: boundedText(raw.type as string, ENVELOPE_LIMITS.type),
    source: boundedText(raw.source as string, ENVELOPE_LIMITS.source),
    ...(typeof raw.subject === 'string'
      ? { subject: boundedText(raw.subject, ENVELOPE_LIMITS.subject) }
      : {}),
  };
}

/** A sender's text inside an error message: JSON-quoted, bounded. */
function quoted(text: string): string {
  return boundedText(JSON.stringify(text), ENVELOPE_LIMITS.type);
}

/** On a session-keyed topic the key is the subject; a producer that sets both differently is refused. */
function keyErrors(key: string | null | undefined, subject: unknown): FieldError[] {
  if (key === undefined || typeof subject !== 'string' || key === subject) return [];
  const message = `${key === null ? 'no key' : quoted(key)} must equal the subject ${quoted(subject)} (the session decides the partition)`;
  return [{ path: 'key', message }];
}

/** Attributes, type, subject and data: every error at once, the data as its class if none. */
function checkEvent(
  raw: Record<string, unknown>,
  options: ParseOptions,
  dataError?: string,
): Validated<object> {
  const subject = typeof raw.subject === 'string' ? raw.subject : undefined;
  const type = raw.type as string;
  const errors = [...attributeErrors(raw), ...typeErrors(type, options)];
  if (!isEventType(type)) return { ok: false, errors };
  const entry = typeEntry(type);
  if (entry.subjectRequired && raw.subject === undefined) {
    errors.push({
      path: 'subject',
      message: 'is required: it is the session (and the record key)',
    });
  }
  const data: Validated<object> =
    dataError === undefined
      ? dataOf(entry, raw)
      : { ok: false, errors: [{ path: 'data', message: dataError }] };
  if (!data.ok) return { ok: false, errors: [...errors, ...data.errors] };
  if (errors.length === 0) errors.push(...subjectErrors(entry, subject, data.value));
  return errors.length === 0 ? data : { ok: false, errors };
}

function invalid(envelope: EnvelopeSummary, errors: FieldError[]): ParseResult {
  return { ok: false, kind: 'invalid', envelope, errors: boundedFieldErrors(errors) };
}

function notCloudEvent(reason: string): ParseResult {
  return { ok: false, kind: 'not-a-cloudevent', reason };
}

/** Context attributes: their values, and no unknown top-level fields except valid extensions. */
function attributeErrors(raw: Record<string, unknown>): FieldError[] {
  const attributes: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const [name, v] of Object.entries(raw)) {
    if (name === 'data') continue;
    if (ATTRIBUTES.has(name)) attributes[name] = v;
    else if (name === 'data_base64')
      errors.push({ path: name, message: 'binary data is not supported: kpm carries JSON data' });
    else if (!EXTENSION_ATTRIBUTE.test(name))
      errors.push({
        path: name,
        message:
          'is not a CloudEvents attribute (extension names are 1–20 lower-case letters or digits)',
      });
  }
  const checked = validateData(CloudEventAttributes, attributes);
  return checked.ok ? errors : [...checked.errors, ...errors];
}

/** The type must be known to kpm and expected on this topic. */
function typeErrors(type: string, options: ParseOptions): FieldError[] {
  const expected = options.expectedTypes ?? expectedOnTopic(options.topic);
  if (!isEventType(type)) {
    return [
      {
        path: 'type',
        message: `unknown type ${quoted(type)}${expected ? `; expected one of ${expected.join(', ')}` : ''}`,
      },
    ];
  }
  if (expected && !expected.includes(type)) {
    return [
      {
        path: 'type',
        message: `type ${JSON.stringify(type)} is not expected here; expected one of ${expected.join(', ')}`,
      },
    ];
  }
  return [];
}

/** `kpm.commands` (any prefix) → the command types. */
function expectedOnTopic(topic: string | undefined): readonly string[] | undefined {
  const id =
    topic === undefined ? undefined : TOPIC_IDS.find((t) => topic === t || topic.endsWith(`.${t}`));
  return id === undefined ? undefined : typesOfTopic(id);
}

/** `data` against its type's class; errors about `data` as a whole are at path `data`. */
function dataOf(entry: TypeEntry<object>, raw: Record<string, unknown>): Validated<object> {
  if (!('data' in raw)) return { ok: false, errors: [{ path: 'data', message: 'is required' }] };
  const checked = validateData(entry.dataClass, raw.data);
  if (checked.ok) return checked;
  return {
    ok: false,
    errors: checked.errors.map((e) => (e.path === '' ? { ...e, path: 'data' } : e)),
  };
}

/** The subject is the record key, so it must be the session the data names. */
function subjectErrors(
  entry: TypeEntry<object>,
  subject: string | undefined,
  data: object,
): FieldError[] {
  const session = entry.sessionOf?.(data);
  if (session === undefined || subject === undefined || session === subject) return [];
  const message = `${quoted(subject)} must equal the session ${quoted(session)} the data names (it is the record key)`;
  return [{ path: 'subject', message }];
}
