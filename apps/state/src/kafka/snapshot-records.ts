/**
 * A shard's snapshot as records of `kpm.state-snapshots` (docs/design.md §9.4), and back.
 *
 * Partition p holds shard p's snapshot: parts of at most `PART_BYTES` (keys `<p>/part/<i>`),
 * then a head (key `<p>/head`) that names the snapshot, its part count and where the inputs
 * stand. A snapshot is written in one transaction, so a reader sees all of it or none; the
 * topic is compacted, so a reader keeps the latest value per key, and parts a smaller snapshot
 * no longer uses get tombstones.
 */
import { randomUUID } from 'node:crypto';
import { EventLoopSlices } from '@kpm/common';
import type { InboundRecord, TransactionalRecord } from '@kpm/kafka';
import type { SnapshotEntry } from '../domain/state-shard';

const SNAPSHOT_FORMAT = 'kpm.state-snapshot/1';
/** Each part stays far below the topic's `max.message.bytes` and parses in a few ms. */
export const PART_BYTES = 512 * 1024;

/** Where the inputs stood when the snapshot was taken: what a restore reads after it. */
export interface SnapshotPositions {
  /** Per input topic: the first offset of partition p not in the snapshot. */
  inputs: Record<string, string>;
  /** `kpm.completions` of partition p: completions from here on may be newer. */
  completionsFrom: string;
  /** `kpm.processes`, per partition: rows and tombstones from here on may be newer. */
  processesFrom: Record<string, string>;
  /**
   * The shard had automatic restarts waiting (exit-actions.ts): its timer may write rows after
   * the snapshot with no input consumed, so a restore reads `kpm.processes` even when idle.
   */
  timerWrites?: true;
}

interface SnapshotHead extends SnapshotPositions {
  format: typeof SNAPSHOT_FORMAT;
  snapshotId: string;
  shard: number;
  parts: number;
  /** Tombstones written with it (parts of a larger snapshot before): its records are the
   * `parts + tombstones` before the head's own offset. */
  tombstones: number;
  entries: number;
  writtenAt: string;
}

/** A snapshot as read back: its head and its parts, not parsed yet. */
export interface StoredSnapshot {
  head: SnapshotHead;
  parts: Buffer[];
}

export const headKey = (shard: number) => `${shard}/head`;
export const partKey = (shard: number, index: number) => `${shard}/part/${index}`;

/** The records of one snapshot, tombstones for the parts of a larger one before it. */
export async function snapshotRecords(
  topic: string,
  shard: number,
  positions: SnapshotPositions,
  entries: Iterable<SnapshotEntry>,
  previousParts: number,
): Promise<{ records: TransactionalRecord[]; head: SnapshotHead; bytes: number }> {
  const snapshotId = randomUUID();
  const record = (key: string, value: string | null) => ({ topic, partition: shard, key, value });
  const records: TransactionalRecord[] = [];
  let bytes = 0;
  let count = 0;
  const packer = new PartPacker(snapshotId, (index, value) => {
    bytes += Buffer.byteLength(value);
    records.push(record(partKey(shard, index), value));
  });
  const slices = new EventLoopSlices();
  for (const entry of entries) {
    packer.add(JSON.stringify(entry));
    count++;
    await slices.next();
  }
  packer.flush();
  for (let i = packer.parts; i < previousParts; i++) records.push(record(partKey(shard, i), null));
  const head: SnapshotHead = {
    format: SNAPSHOT_FORMAT,
    snapshotId,
    shard,
    parts: packer.parts,
    tombstones: Math.max(0, previousParts - packer.parts),
    entries: count,
    writtenAt: new Date().toISOString(),
    ...positions,
  };
  records.push(record(headKey(shard), JSON.stringify(head)));
  return { records, head, bytes };
}

/** A part's own fields around its entries: the snapshot id and the part index. */
const ENVELOPE_BYTES = 128;

/** Packs serialised entries into parts of at most `PART_BYTES` (one larger entry: alone). */
class PartPacker {
  parts = 0;
  private open: string[] = [];
  private size = 0;

  constructor(
    private readonly snapshotId: string,
    private readonly emit: (index: number, value: string) => void,
  ) {}

  add(entry: string): void {
    const size = Buffer.byteLength(entry) + 1;
    if (this.open.length > 0 && this.size + size > PART_BYTES - ENVELOPE_BYTES) this.flush();
    this.open.push(entry);
    this.size += size;
  }

  flush(): void {
    if (this.open.length === 0) return;
    const prefix = `{"snapshotId":${JSON.stringify(this.snapshotId)},"part":${this.parts}`;
    this.emit(this.parts++, `${prefix},"entries":[${this.open.join(',')}]}`);
    this.open = [];
    this.size = 0;
  }
}

/** Collects the records of `kpm.state-snapshots` partitions: the latest value per key. */
export class SnapshotCollector {
  private readonly latest = new Map<string, Buffer | null>();
  private readonly heads = new Map<number, bigint>();
  private readonly seen = new Set<number>();

  add(record: InboundRecord): void {
    this.seen.add(record.partition);
    if (record.key === null) return;
    this.latest.set(record.key, record.value);
    if (record.key === headKey(record.partition))
      this.heads.set(record.partition, BigInt(record.offset));
  }

  /**
   * Where shard p's last snapshot starts if its head was read (the offset of its first record):
   * a read of the partition's tail that did not reach it reads again from there.
   */
  startOf(shard: number): bigint | undefined {
    const at = this.heads.get(shard);
    const raw = this.latest.get(headKey(shard));
    if (at === undefined || !raw) return undefined;
    try {
      const head = parseHead(raw, shard);
      return at - BigInt(head.parts + head.tombstones);
    } catch {
      return undefined; // unusable: found() says why
    }
  }

  /** Records of shard p's partition were read, but no head among them. */
  headless(shard: number): boolean {
    return this.seen.has(shard) && !this.heads.has(shard);
  }

  /** Every part of shard p's last snapshot was read (false when it is unusable). */
  complete(shard: number): boolean {
    try {
      return this.found(shard) !== undefined;
    } catch {
      return false;
    }
  }

  /** Shard p's last complete snapshot; undefined when it has none; throws when it is unusable. */
  found(shard: number): StoredSnapshot | undefined {
    const raw = this.latest.get(headKey(shard));
    if (!raw) return undefined;
    const head = parseHead(raw, shard);
    const parts = Array.from({ length: head.parts }, (_, i) => {
      const part = this.latest.get(partKey(shard, i));
      if (!part) throw new Error(`snapshot ${head.snapshotId} misses part ${i} of ${head.parts}`);
      return part;
    });
    return { head, parts };
  }
}

/** The entries of a stored snapshot, part by part; throws on a part of another snapshot. */
export function* entriesOf(stored: StoredSnapshot): Generator<SnapshotEntry> {
  const { snapshotId } = stored.head;
  for (const [index, raw] of stored.parts.entries()) {
    const part = JSON.parse(raw.toString('utf8')) as {
      snapshotId?: unknown;
      part?: unknown;
      entries?: unknown;
    };
    if (part.snapshotId !== snapshotId || part.part !== index || !Array.isArray(part.entries))
      throw new Error(`part ${index} does not belong to snapshot ${snapshotId}`);
    yield* part.entries as SnapshotEntry[];
  }
}

function parseHead(raw: Buffer, shard: number): SnapshotHead {
  const head = JSON.parse(raw.toString('utf8')) as Partial<SnapshotHead>;
  if (head.format !== SNAPSHOT_FORMAT)
    throw new Error(`snapshot format ${JSON.stringify(head.format)}, expected ${SNAPSHOT_FORMAT}`);
  const offsets = (o: unknown) =>
    typeof o === 'object' && o !== null && Object.values(o).every(isOffset);
  const valid =
    head.shard === shard &&
    typeof head.snapshotId === 'string' &&
    Number.isInteger(head.parts) &&
    (head.parts ?? -1) >= 0 &&
    Number.isInteger(head.entries) &&
    Number.isInteger(head.tombstones) &&
    offsets(head.inputs) &&
    isOffset(head.completionsFrom) &&
    offsets(head.processesFrom);
  if (!valid) throw new Error(`snapshot head of shard ${shard} is malformed`);
  return head as SnapshotHead;
}

function isOffset(value: unknown): boolean {
  return typeof value === 'string' && /^\d{1,19}$/.test(value);
}
