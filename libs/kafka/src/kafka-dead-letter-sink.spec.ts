import { createHash, randomBytes } from 'node:crypto';
import { DeadLetterType, MAX_RECORD_BYTES, parseRecord, type DeadLetter } from '@kpm/contracts';
import type { InboundRecord } from './inbound-record';
import { deadLetterRecord } from './kafka-dead-letter-sink';

const MiB = 1024 * 1024;
const record = (value: Buffer | null, key: string | null = 'session-a'): InboundRecord => ({
  topic: 'kpm.commands',
  partition: 3,
  offset: '42',
  key,
  value,
  headers: { 'content-type': 'application/cloudevents+json' },
  timestamp: '0',
});

function letterOf(value: Buffer | null, key?: string | null) {
  const out = deadLetterRecord(record(value, key), 'not UTF-8 JSON', [], 'kpm-boot-worker');
  const parsed = parseRecord(out.value as Buffer, { expectedTypes: [DeadLetterType.deadLetter] });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed));
  return { out, data: parsed.event.data as DeadLetter };
}

describe('deadLetterRecord', () => {
  it.each([
    ['1 byte', 1, false],
    ['exactly 64 KiB', 64 * 1024, false],
    ['1 MiB', MiB, true],
    ['7 MiB', 7 * MiB, true],
    ['the largest record', MAX_RECORD_BYTES, true],
  ])('keeps at most 64 KiB of a %s value, with its length and sha256', (_, bytes, cut) => {
    const value = randomBytes(bytes);
    const { out, data } = letterOf(value);
    const kept = Buffer.from(data.valueBase64!, 'base64');
    expect(kept).toEqual(value.subarray(0, 64 * 1024));
    expect(data.valueBytes).toBe(bytes);
    expect(data.valueSha256).toBe(createHash('sha256').update(value).digest('hex'));
    expect(data.valueTruncated ?? false).toBe(cut);
    expect((out.value as Buffer).length).toBeLessThan(128 * 1024);
  });

  it('carries no value for a tombstone', () => {
    const { data } = letterOf(null);
    expect(data.valueBase64).toBeUndefined();
    expect(data.valueBytes).toBeUndefined();
  });

  it('keys by the original key, and bounds one that could not be a session', () => {
    expect(letterOf(Buffer.from('x'), 'session-a').out.key).toBe('session-a');
    const long = letterOf(Buffer.from('x'), 'k'.repeat(MiB));
    expect(long.out.key.length).toBeLessThanOrEqual(256);
    expect(long.data.key).toBe(long.out.key);
  });

  it('lists at most 100 errors', () => {
    const errors = Array.from({ length: 5000 }, (_, i) => ({ path: `p${i}`, message: 'bad' }));
    const out = deadLetterRecord(record(Buffer.from('x')), 'invalid CloudEvent', errors);
    const data = JSON.parse((out.value as Buffer).toString()).data as DeadLetter;
    expect(data.errors).toHaveLength(101);
    expect(data.errors![100]).toEqual({ path: '(more)', message: '4900 more errors not listed' });
  });
});
