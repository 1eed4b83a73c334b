import type { InboundRecord, TransactionalRecord } from '@kpm/kafka';
import { produceRequests } from '@kpm/kafka';
import type { SnapshotEntry } from '../domain/state-shard';
import {
  entriesOf,
  headKey,
  PART_BYTES,
  partKey,
  SnapshotCollector,
  snapshotRecords,
  type SnapshotPositions,
} from './snapshot-records';

const TOPIC = 'kpm.state-snapshots';
const POSITIONS: SnapshotPositions = {
  inputs: { 'kpm.process-events': '120', 'kpm.terminations': '80' },
  completionsFrom: '44',
  processesFrom: { '0': '10', '1': '0' },
};

/** `n` entries of about 1 KiB each. */
const entries = (n: number, tag = 'x'): SnapshotEntry[] =>
  Array.from({ length: n }, (_, i) => ['completed', [`${tag}-${i}`, 'y'.repeat(1000)]]);

/** Records as a reader gets them back from the topic. */
function inbound(records: readonly TransactionalRecord[], from = 0): InboundRecord[] {
  return records.map((r, i) => ({
    topic: r.topic,
    partition: r.partition ?? 0,
    offset: String(from + i),
    key: r.key,
    value: r.value === null ? null : Buffer.from(r.value),
    headers: {},
    timestamp: '0',
  }));
}

describe('snapshot records', () => {
  it('cuts a snapshot into parts under PART_BYTES and reads the same entries back', async () => {
    const written = entries(2000);
    const { records, head, bytes } = await snapshotRecords(TOPIC, 3, POSITIONS, written, 0);
    expect(head).toMatchObject({ shard: 3, parts: 4, entries: 2000, ...POSITIONS });
    expect(records.map((r) => r.key)).toEqual(
      [0, 1, 2, 3].map((i) => partKey(3, i)).concat(headKey(3)),
    );
    for (const r of records) expect(Buffer.byteLength(r.value!)).toBeLessThanOrEqual(PART_BYTES);
    expect(bytes).toBeGreaterThan(2000 * 1000);
    const collector = new SnapshotCollector();
    inbound(records).forEach((r) => collector.add(r));
    expect([...entriesOf(collector.found(3)!)]).toEqual(written);
    expect(collector.found(2)).toBeUndefined();
  });

  it('keeps the latest snapshot, and tombstones the parts a smaller one no longer uses', async () => {
    const big = await snapshotRecords(TOPIC, 0, POSITIONS, entries(2000, 'old'), 0);
    const small = await snapshotRecords(TOPIC, 0, POSITIONS, entries(10, 'new'), big.head.parts);
    const tombstones = small.records.filter((r) => r.value === null).map((r) => r.key);
    expect(tombstones).toEqual([1, 2, 3].map((i) => partKey(0, i)));
    const collector = new SnapshotCollector();
    inbound([...big.records, ...small.records]).forEach((r) => collector.add(r));
    expect([...entriesOf(collector.found(0)!)]).toEqual(entries(10, 'new'));
  });

  it('refuses a head of another format, a missing part, and a part of another snapshot', async () => {
    const one = await snapshotRecords(TOPIC, 0, POSITIONS, entries(1000, 'a'), 0);
    const two = await snapshotRecords(TOPIC, 0, POSITIONS, entries(1000, 'b'), 0);
    const read = (records: TransactionalRecord[]) => {
      const collector = new SnapshotCollector();
      inbound(records).forEach((r) => collector.add(r));
      return () => [...entriesOf(collector.found(0)!)];
    };
    const head = one.records.at(-1)!;
    const otherFormat = { ...head, value: head.value!.toString().replace('/1"', '/9"') };
    expect(read([...one.records.slice(0, -1), otherFormat])).toThrow(
      'snapshot format "kpm.state-snapshot/9", expected kpm.state-snapshot/1',
    );
    expect(read([...one.records.slice(1)])).toThrow(`misses part 0 of ${one.head.parts}`);
    expect(read([...one.records.slice(0, -1), two.records[0], head])).toThrow(
      `part 0 does not belong to snapshot ${one.head.snapshotId}`,
    );
    const badOffsets = { ...head, value: head.value!.toString().replace('"44"', '"-1"') };
    expect(read([...one.records.slice(0, -1), badOffsets])).toThrow(
      'snapshot head of shard 0 is malformed',
    );
  });
});

describe('SnapshotCollector on a partition tail', () => {
  it('says where the last snapshot starts when the tail read holds only its end', async () => {
    const old = await snapshotRecords(TOPIC, 1, POSITIONS, entries(3000, 'old'), 0);
    const last = await snapshotRecords(TOPIC, 1, POSITIONS, entries(1000, 'new'), old.head.parts);
    const all = inbound([...old.records, ...last.records], 100);
    const tail = new SnapshotCollector();
    all.slice(-3).forEach((r) => tail.add(r));
    expect(tail.complete(1)).toBe(false);
    const start = 100 + old.records.length;
    expect(tail.startOf(1)).toBe(BigInt(start));
    const again = new SnapshotCollector();
    all.filter((r) => Number(r.offset) >= start).forEach((r) => again.add(r));
    expect([...entriesOf(again.found(1)!)]).toEqual(entries(1000, 'new'));
    expect(again.headless(1)).toBe(false);
    const parts = new SnapshotCollector();
    all.slice(0, 2).forEach((r) => parts.add(r));
    expect(parts.headless(1)).toBe(true);
    expect(new SnapshotCollector().headless(1)).toBe(false);
  });
});

describe('produceRequests', () => {
  const record = (bytes: number): TransactionalRecord => ({
    topic: TOPIC,
    key: 'k',
    value: 'x'.repeat(bytes),
  });

  it('cuts outputs into requests of at most the limit, a larger record alone, in order', () => {
    const outputs = [record(40), record(40), record(40), record(200), record(10)];
    const sizes = produceRequests(outputs, 100).map((r) => r.map((o) => o.value!.length));
    expect(sizes).toEqual([[40, 40], [40], [200], [10]]);
    expect(produceRequests([])).toEqual([]);
  });
});
