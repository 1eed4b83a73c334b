import { VirtualClock } from '@kpm/common';
import { loadSettings } from '@kpm/config';
import { ShardSnapshots } from './shard-snapshots';

function setup() {
  const settings = loadSettings('state', {
    KPM_STATE_SNAPSHOT_EVERY_RECORDS: '1000',
    KPM_STATE_SNAPSHOT_INTERVAL_SECONDS: '60',
  });
  const clock = new VirtualClock(0);
  const snapshots = new ShardSnapshots(settings, () => Promise.resolve([]), clock);
  return { snapshots, clock };
}

describe('ShardSnapshots: when a shard writes its snapshot', () => {
  it('after snapshotEveryRecords records, at once', () => {
    const { snapshots } = setup();
    snapshots.applied(2, 600);
    expect(snapshots.dueAt(2)).toBe(60_000);
    snapshots.applied(2, 400);
    expect(snapshots.dueAt(2)).toBe(0);
  });

  it('snapshotIntervalSeconds after the first record since the last one, and not when idle', async () => {
    const { snapshots, clock } = setup();
    await clock.sleep(120_000);
    expect(snapshots.dueAt(1)).toBeUndefined();
    snapshots.applied(1, 5);
    await clock.sleep(30_000);
    snapshots.applied(1, 5); // does not push the deadline back
    expect(snapshots.dueAt(1)).toBe(180_000);
  });

  it('waits for as many records as the last snapshot had entries, if more', () => {
    const { snapshots } = setup();
    snapshots.restored(0, { parts: 10, entries: 5000 }, 0);
    expect(snapshots.dueAt(0)).toBeUndefined();
    snapshots.applied(0, 4999);
    expect(snapshots.dueAt(0)).toBe(60_000);
    snapshots.applied(0, 1);
    expect(snapshots.dueAt(0)).toBe(0);
  });

  it.each<[string, { parts: number; entries: number } | undefined, number, number | undefined]>([
    ['soon after a restore that replayed enough facts', { parts: 1, entries: 10 }, 2500, 1_000],
    ['in an interval after one that replayed a few', { parts: 1, entries: 10 }, 5, 60_000],
    ['not after one that replayed none', { parts: 1, entries: 10 }, 0, undefined],
    [
      'soon after a restore without a usable snapshot, even of an empty partition',
      undefined,
      0,
      1_000,
    ],
  ])('%s', (_, last, replayed, due) => {
    const { snapshots } = setup();
    snapshots.restored(3, last, replayed);
    expect(snapshots.dueAt(3)).toBe(due);
  });

  it('writes only when due, and nothing after its partition is released', async () => {
    const { snapshots } = setup();
    const shard = { snapshot: () => [] } as never;
    snapshots.applied(4, 10);
    expect(await snapshots.takeIfDue(4, shard, new Map())).toEqual([]);
    snapshots.release(4);
    expect(snapshots.dueAt(4)).toBeUndefined();
  });
});
