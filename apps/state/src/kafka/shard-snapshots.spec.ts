import { loadSettings } from '@kpm/config';
import type { KafkaClient, TransactionalRunner } from '@kpm/kafka';
import { StateShard } from '../domain/state-shard';
import { ShardSnapshots } from './shard-snapshots';

/** A runner that records which partitions asked for a snapshot; `restored` says if it ran. */
class Runner {
  readonly asked: number[] = [];
  restored = true;

  submit(partition: number): Promise<boolean> {
    this.asked.push(partition);
    return Promise.resolve(this.restored);
  }
}

function setup() {
  const settings = loadSettings('state', {
    KPM_STATE_SNAPSHOT_EVERY_RECORDS: '1000',
    KPM_STATE_SNAPSHOT_INTERVAL_SECONDS: '60',
  });
  const shard = new StateShard();
  const snapshots = new ShardSnapshots(settings, {} as KafkaClient, () => shard);
  const runner = new Runner();
  snapshots.attach(runner as unknown as TransactionalRunner);
  return { snapshots, runner };
}

describe('ShardSnapshots: when a shard writes its snapshot', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('after snapshotEveryRecords records, at once', () => {
    const { snapshots, runner } = setup();
    snapshots.applied(2, 600);
    expect(runner.asked).toEqual([]);
    snapshots.applied(2, 400);
    expect(runner.asked).toEqual([2]);
    snapshots.applied(2, 999);
    expect(runner.asked).toEqual([2]);
  });

  it('snapshotIntervalSeconds after the first record since the last one, and not when idle', () => {
    const { snapshots, runner } = setup();
    jest.advanceTimersByTime(120_000);
    expect(runner.asked).toEqual([]);
    snapshots.applied(1, 5);
    jest.advanceTimersByTime(30_000);
    snapshots.applied(1, 5); // does not push the deadline back
    jest.advanceTimersByTime(29_999);
    expect(runner.asked).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(runner.asked).toEqual([1]);
  });

  it('waits for as many records as the last snapshot had entries, if more', () => {
    const { snapshots, runner } = setup();
    snapshots.restored(0, { parts: 10, entries: 5000 }, 0);
    jest.advanceTimersByTime(60_000);
    expect(runner.asked).toEqual([]);
    snapshots.applied(0, 4999);
    expect(runner.asked).toEqual([]);
    snapshots.applied(0, 1);
    expect(runner.asked).toEqual([0]);
  });

  it('soon after a restore that replayed enough facts, again while the partition is not ready', async () => {
    const { snapshots, runner } = setup();
    runner.restored = false;
    snapshots.restored(3, { parts: 1, entries: 10 }, 2500);
    jest.advanceTimersByTime(1000);
    expect(runner.asked).toEqual([3]);
    await Promise.resolve(); // the refusal comes back
    runner.restored = true;
    jest.advanceTimersByTime(1000);
    expect(runner.asked).toEqual([3, 3]);
    await Promise.resolve();
    jest.advanceTimersByTime(60_000);
    expect(runner.asked).toEqual([3, 3]);
  });

  it('soon after a restore without a usable snapshot, even of an empty partition', () => {
    const { snapshots, runner } = setup();
    snapshots.restored(5, undefined, 0);
    jest.advanceTimersByTime(1000);
    expect(runner.asked).toEqual([5]);
  });

  it('nothing after its partition is released', () => {
    const { snapshots, runner } = setup();
    snapshots.applied(4, 10);
    snapshots.release(4);
    jest.advanceTimersByTime(60_000);
    expect(runner.asked).toEqual([]);
  });
});
