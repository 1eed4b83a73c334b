import type { InboundRecord } from '@kpm/kafka';
import { CatchUpBuffer } from './catch-up-buffer';

let offset = 0;
const record = (topic: string, key: string | null, value: string | null): InboundRecord => ({
  topic,
  partition: 0,
  offset: String(offset++),
  key,
  value: value === null ? null : Buffer.from(value),
  headers: {},
  timestamp: '0',
});
const row = (key: string, value: string | null) => record('kpm.processes', key, value);
const completion = (id: string) => record('kpm.completions', 's', id);
const values = (records: Iterable<InboundRecord>) =>
  [...records].map((r) => r.value?.toString() ?? null);

describe('CatchUpBuffer', () => {
  it('keeps the latest row per uuid in the order last written, none after a tombstone', () => {
    const buffer = new CatchUpBuffer(10);
    for (const r of [
      row('a', 'a1'),
      row('b', 'b1'),
      row('a', 'a2'),
      row('c', 'c1'),
      row('b', null),
    ])
      buffer.row(r);
    expect(buffer.size).toBe(2);
    expect(values(buffer.drain())).toEqual(['a2', 'c1']);
    expect(buffer.size).toBe(0);
  });

  it('keeps only the last completions the cache can hold, before the rows', () => {
    const buffer = new CatchUpBuffer(3);
    buffer.row(row('a', 'a1'));
    for (let i = 0; i < 10; i++) buffer.completion(completion(`c${i}`));
    expect(values(buffer.drain())).toEqual(['c7', 'c8', 'c9', 'a1']);
  });

  it('hands out rows kept while it drains, after the others', () => {
    const buffer = new CatchUpBuffer(3);
    buffer.row(row('a', 'a1'));
    buffer.row(row('b', 'b1'));
    const out: string[] = [];
    for (const r of buffer.drain()) {
      out.push(r.value!.toString());
      if (out.length === 1) buffer.row(row('a', 'a2'));
    }
    expect(out).toEqual(['a1', 'b1', 'a2']);
    expect(buffer.size).toBe(0);
  });
});
