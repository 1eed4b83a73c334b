import { encodeEvent } from './build';
import { CommandType, ProcessEventType, type EventType } from './event-types';
import { EXAMPLE_EVENTS } from './examples';
import { parseRecord, type ParseResult } from './parse';
import { EVENT_TYPES, TYPE_REGISTRY } from './registry';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const boot = EXAMPLE_EVENTS[CommandType.boot];

function invalid(result: ParseResult) {
  if (result.ok || result.kind !== 'invalid')
    throw new Error(`expected invalid, got ${JSON.stringify(result)}`);
  return result;
}

describe('parseRecord', () => {
  it.each(EVENT_TYPES)('parses the example %s into its data class', (type: EventType) => {
    const example = EXAMPLE_EVENTS[type];
    const result = parseRecord(encodeEvent(example).value);
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(result.event.data).toBeInstanceOf(TYPE_REGISTRY[type].dataClass);
    expect(JSON.parse(JSON.stringify(result.event))).toEqual(JSON.parse(JSON.stringify(example)));
  });

  it('gives nested objects their classes too', () => {
    const result = parseRecord(encodeEvent(boot).value);
    expect(
      result.ok &&
        result.event.type === CommandType.boot &&
        result.event.data.processes[0].constructor.name,
    ).toBe('ProcessSpec');
  });

  describe('not a CloudEvent (to dead-letter)', () => {
    it.each([
      ['garbage bytes', Buffer.from([0xff, 0xfe, 0x00, 0x01]), 'not UTF-8 JSON'],
      ['non-JSON text', Buffer.from('hello'), 'not UTF-8 JSON'],
      ['an empty value', Buffer.alloc(0), 'not UTF-8 JSON'],
      ['a JSON array', json([boot]), 'an array'],
      ['a JSON string', json('x'), 'string'],
      ['JSON null', json(null), 'null'],
      ['an object without specversion', json({ ...boot, specversion: undefined }), '"specversion"'],
      ['another specversion', json({ ...boot, specversion: '0.3' }), 'not supported'],
      ['an object without id', json({ ...boot, id: undefined }), '"id"'],
      ['an empty type', json({ ...boot, type: '' }), '"type"'],
      ['a numeric source', json({ ...boot, source: 1 }), '"source"'],
    ])('%s', (_what, value, why) => {
      const result = parseRecord(value);
      expect(result).toEqual({
        ok: false,
        kind: 'not-a-cloudevent',
        reason: expect.stringContaining(why),
      });
    });

    it('an oversize record, before its JSON is parsed', () => {
      const value = Buffer.concat([encodeEvent(boot).value, Buffer.from('not json at all')]);
      expect(parseRecord(value, { maxBytes: 100 })).toEqual({
        ok: false,
        kind: 'not-a-cloudevent',
        reason: `the record is ${value.length} bytes, at most 100 are accepted`,
      });
    });

    it('an id too long to answer', () => {
      expect(parseRecord(json({ ...boot, id: 'i'.repeat(257) }))).toEqual({
        ok: false,
        kind: 'not-a-cloudevent',
        reason: expect.stringContaining('"id" is 257 characters, at most 256'),
      });
      expect(parseRecord(json({ ...boot, id: 'i'.repeat(256) })).ok).toBe(true);
    });

    it('a tombstone', () => {
      expect(parseRecord(null)).toEqual({
        ok: false,
        kind: 'not-a-cloudevent',
        reason: expect.stringContaining('tombstone'),
      });
    });
  });

  describe('an invalid CloudEvent (to answer)', () => {
    it('carries what is known of the envelope', () => {
      const result = invalid(parseRecord(json({ ...boot, data: { ...boot.data, user: '' } })));
      expect(result.envelope).toEqual({
        id: boot.id,
        type: boot.type,
        source: boot.source,
        subject: 'session-a',
      });
      expect(result.errors).toEqual([
        { path: 'user', message: expect.stringContaining('user name') },
      ]);
    });

    it.each([
      [-1, 'must not be negative'],
      [1.5, 'must be a whole number of seconds'],
      [86_401, 'must be at most 86400 seconds'],
      ['60', 'must be a whole number of seconds'],
    ])(
      'refuses a kill.accepted whose progressTimeoutSeconds is %p, then takes the next',
      (value, message) => {
        const kill = EXAMPLE_EVENTS[ProcessEventType.killAccepted];
        const bad = { ...kill, data: { ...kill.data, progressTimeoutSeconds: value } };
        expect(invalid(parseRecord(json(bad))).errors).toEqual([
          { path: 'progressTimeoutSeconds', message },
        ]);
        const next = parseRecord(json(kill));
        expect(
          next.ok &&
            next.event.type === ProcessEventType.killAccepted &&
            next.event.data.progressTimeoutSeconds,
        ).toBe(60);
      },
    );

    it('names an unknown type at path type', () => {
      const result = invalid(parseRecord(json({ ...boot, type: 'daq.kpm.command.reboot.v1' })));
      expect(result.errors).toEqual([
        {
          path: 'type',
          message: expect.stringContaining('unknown type "daq.kpm.command.reboot.v1"'),
        },
      ]);
    });

    it('rejects a known type that is not expected on the topic', () => {
      const fact = EXAMPLE_EVENTS[ProcessEventType.bootAccepted];
      const byTopic = invalid(parseRecord(encodeEvent(fact).value, { topic: 'kpm.commands' }));
      expect(byTopic.errors).toEqual([
        { path: 'type', message: expect.stringContaining('not expected here') },
      ]);
      expect(byTopic.errors[0].message).toContain(CommandType.boot);
      const byList = invalid(
        parseRecord(encodeEvent(fact).value, { expectedTypes: [CommandType.kill] }),
      );
      expect(byList.errors).toEqual([
        { path: 'type', message: expect.stringContaining(CommandType.kill) },
      ]);
      expect(parseRecord(encodeEvent(boot).value, { topic: 'test-1.kpm.commands' }).ok).toBe(true);
    });

    it('requires the subject (the session) and that it matches the data', () => {
      expect(invalid(parseRecord(json({ ...boot, subject: undefined }))).errors).toEqual([
        { path: 'subject', message: expect.stringContaining('is required') },
      ]);
      expect(invalid(parseRecord(json({ ...boot, subject: 'session-b' }))).errors).toEqual([
        { path: 'subject', message: expect.stringContaining('must equal the session "session-a"') },
      ]);
    });

    it('checks the context attributes', () => {
      const result = invalid(
        parseRecord(
          json({
            ...boot,
            time: 'yesterday',
            datacontenttype: 'text/plain',
            Foo: 1,
            data_base64: 'aGk=',
          }),
        ),
      );
      expect(result.errors).toEqual([
        { path: 'time', message: expect.stringContaining('RFC 3339') },
        { path: 'datacontenttype', message: expect.stringContaining('application/json') },
        { path: 'Foo', message: expect.stringContaining('not a CloudEvents attribute') },
        { path: 'data_base64', message: expect.stringContaining('binary data is not supported') },
      ]);
    });

    it('accepts CloudEvents extension attributes and a missing time', () => {
      expect(parseRecord(json({ ...boot, traceparent: '00-abc', time: undefined })).ok).toBe(true);
    });

    it('requires data, as an object', () => {
      expect(invalid(parseRecord(json({ ...boot, data: undefined }))).errors).toEqual([
        { path: 'data', message: 'is required' },
      ]);
      expect(invalid(parseRecord(json({ ...boot, data: [1] }))).errors).toEqual([
        { path: 'data', message: 'must be a JSON object' },
      ]);
    });
  });

  describe('bounded work and bounded echoes (hostile input)', () => {
    const MiB = 1024 * 1024;
    const processes = (n: number) => Array.from({ length: n }, () => ({}));

    it.each([
      ['type', { type: 't'.repeat(4 * MiB) }, 'type'],
      ['source', { source: 's'.repeat(4 * MiB) }, 'source'],
      ['subject', { subject: 'x'.repeat(4 * MiB) }, 'subject'],
    ])('an oversize %s is refused and echoed only as a bounded copy', (_, attrs, path) => {
      const result = invalid(parseRecord(json({ ...boot, ...attrs })));
      expect(result.errors.map((e) => e.path)).toContain(path);
      expect(JSON.stringify(result).length).toBeLessThan(16 * 1024);
      expect(result.envelope.id).toBe(boot.id);
    });

    it('echoes attributes without control characters', () => {
      const result = invalid(parseRecord(json({ ...boot, type: 'evil\u001b[2J\n' })));
      expect(result.envelope.type).toBe('evil?[2J?');
    });

    it.each([
      ['1 MiB of empty processes', { processes: processes(MiB / 3) }, 'processes'],
      ['5001 processes', { processes: processes(5001) }, 'processes'],
    ])('refuses %s before validating any item', (_, data, path) => {
      const started = performance.now();
      const result = invalid(parseRecord(json({ ...boot, data: { ...boot.data, ...data } })));
      expect(performance.now() - started).toBeLessThan(1000);
      expect(result.errors).toEqual([{ path, message: 'must list at most 5000 processes' }]);
    });

    it('lists at most 100 field errors and counts the rest', () => {
      const result = invalid(
        parseRecord(json({ ...boot, data: { ...boot.data, processes: processes(5000) } })),
      );
      expect(result.errors).toHaveLength(101);
      expect(result.errors[100]).toEqual({
        path: '(more)',
        message: expect.stringMatching(/^\d+ more errors not listed$/),
      });
      expect(Number(result.errors[100].message.split(' ')[0])).toBeGreaterThan(5000);
    });

    it('bounds every message quoting a value', () => {
      const env = { ['1' + 'K'.repeat(MiB)]: 'v' };
      const spec = { ...boot.data.processes[0], env };
      const result = invalid(
        parseRecord(json({ ...boot, data: { ...boot.data, processes: [spec] } })),
      );
      expect(result.errors).toEqual([
        { path: 'processes[0].env', message: expect.stringContaining('characters)') },
      ]);
      expect(result.errors[0].message.length).toBeLessThanOrEqual(1024);
    });

    it.each([
      ['the subject', 'session-a', true],
      ['another session', 'session-b', false],
      ['no key', null, false],
    ])('on a keyed topic, a key equal to %s is %s', (_, key, ok) => {
      const result = parseRecord(encodeEvent(boot).value, { key });
      if (ok) expect(result.ok).toBe(true);
      else
        expect(invalid(result).errors).toEqual([
          { path: 'key', message: expect.stringContaining('must equal the subject "session-a"') },
        ]);
    });
  });
});
