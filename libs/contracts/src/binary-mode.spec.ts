import { encodeEvent } from './build';
import { CommandType } from './event-types';
import { EXAMPLE_EVENTS } from './examples';
import { isBinaryMode } from './binary-mode';
import { parseRecord } from './parse';

const ps = EXAMPLE_EVENTS[CommandType.ps];
const boot = EXAMPLE_EVENTS[CommandType.boot];

/** The Kafka binding's binary mode of a structured event: `ce_` headers, value = data. */
function binary(event: typeof ps | typeof boot, change: Record<string, string | undefined> = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [name, value] of Object.entries(event)) {
    if (name !== 'data' && name !== 'datacontenttype') headers[`ce_${name}`] = String(value);
  }
  for (const [name, value] of Object.entries(change)) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  return { value: Buffer.from(JSON.stringify(event.data)), headers };
}

describe('CloudEvents binary mode (Kafka binding)', () => {
  it.each([
    ['no headers', undefined, false],
    ['structured content type', { 'content-type': 'application/cloudevents+json' }, false],
    [
      'structured, with ce_ headers too',
      { 'content-type': 'application/cloudevents+json; charset=utf-8', ce_id: 'x' },
      false,
    ],
    ['ce_ headers, JSON content type', { 'content-type': 'application/json', ce_id: 'x' }, true],
    ['ce_ headers, no content type', { ce_specversion: '1.0' }, true],
  ])('%s → binary %s', (_, headers, expected) => {
    expect(isBinaryMode(headers)).toBe(expected);
  });

  it.each([
    ['ps', ps],
    ['boot', boot],
  ])('reads a binary-mode %s as the same event as its structured record', (_, event) => {
    const { value, headers } = binary(event);
    const fromBinary = parseRecord(value, { topic: 'kpm.commands', headers });
    const fromStructured = parseRecord(encodeEvent(event).value, { topic: 'kpm.commands' });
    expect(fromBinary).toEqual(fromStructured);
    expect(fromBinary.ok).toBe(true);
  });

  it('carries extension attributes (traceparent) from their headers', () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const { value, headers } = binary(ps, { ce_traceparent: traceparent });
    const result = parseRecord(value, { headers });
    expect(result.ok && (result.event as unknown as { traceparent: string }).traceparent).toBe(
      traceparent,
    );
  });

  it.each([
    ['ce_specversion', 'missing the CloudEvents attribute "specversion" (header ce_specversion)'],
    ['ce_id', 'missing the CloudEvents attribute "id" (header ce_id)'],
    ['ce_source', 'missing the CloudEvents attribute "source" (header ce_source)'],
    ['ce_type', 'missing the CloudEvents attribute "type" (header ce_type)'],
  ])('without %s it is not a CloudEvent: %s', (header, reason) => {
    const { value, headers } = binary(ps, { [header]: undefined });
    expect(parseRecord(value, { headers })).toEqual({
      ok: false,
      kind: 'not-a-cloudevent',
      reason,
    });
  });

  it('refuses another specversion', () => {
    const { value, headers } = binary(ps, { ce_specversion: '0.3' });
    expect(parseRecord(value, { headers })).toEqual({
      ok: false,
      kind: 'not-a-cloudevent',
      reason: 'CloudEvents specversion "0.3" is not supported (only 1.0)',
    });
  });

  const envelope = { id: ps.id, type: ps.type, source: ps.source, subject: ps.subject };
  it.each<
    [
      string,
      Buffer | null,
      Record<string, string | undefined>,
      Array<{ path: string; message: string }>,
    ]
  >([
    [
      'data that is not JSON',
      Buffer.from('{ nope'),
      {},
      [
        {
          path: 'data',
          message: expect.stringMatching(/^is not UTF-8 JSON: /),
        },
      ],
    ],
    ['no value', null, {}, [{ path: 'data', message: 'is required: the record has no value' }]],
    [
      'a content type other than JSON',
      undefined as unknown as Buffer,
      { 'content-type': 'text/plain' },
      [{ path: 'datacontenttype', message: 'must be "application/json" (kpm carries JSON data)' }],
    ],
    [
      'a subject other than the data’s session',
      undefined as unknown as Buffer,
      { ce_subject: 'session-b' },
      [
        {
          path: 'subject',
          message:
            '"session-b" must equal the session "session-a" the data names (it is the record key)',
        },
      ],
    ],
    [
      'a bad extension name',
      undefined as unknown as Buffer,
      { ce_Trace_Parent: 'x' },
      [
        {
          path: 'Trace_Parent',
          message:
            'is not a CloudEvents attribute (extension names are 1–20 lower-case letters or digits)',
        },
      ],
    ],
  ])('answers %s by naming the field', (_, value, change, errors) => {
    const record = binary(ps, change);
    const result = parseRecord(value === undefined ? record.value : value, {
      headers: record.headers,
    });
    expect(result).toEqual({
      ok: false,
      kind: 'invalid',
      envelope: change.ce_subject ? { ...envelope, subject: change.ce_subject } : envelope,
      errors,
    });
  });
});
