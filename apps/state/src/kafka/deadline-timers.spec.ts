import type { TransactionalRecord, TransactionalRunner } from '@kpm/kafka';
import type { StateShard } from '../domain/state-shard';
import { DeadlineTimers } from './deadline-timers';

function shardWithDeadline(deadline: number | undefined): StateShard {
  return { nextDeadline: () => deadline } as unknown as StateShard;
}

function setup(shard: StateShard | undefined) {
  const shards = new Map<number, StateShard>();
  if (shard) shards.set(0, shard);
  const expired: StateShard[] = [];
  const published: TransactionalRecord[][] = [];
  const timers = new DeadlineTimers(
    (p) => shards.get(p),
    (_p, s) => {
      expired.push(s);
      return [{ topic: 'kpm.completions', key: 's', value: 'timed out' }];
    },
  );
  const runner = {
    submit: (_p: number, work: () => TransactionalRecord[]) => {
      published.push(work());
      return Promise.resolve();
    },
  };
  timers.attach(runner as unknown as TransactionalRunner);
  return { shards, expired, published, timers };
}

describe('DeadlineTimers', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000 }));
  afterEach(() => jest.useRealTimers());

  it.each([
    {
      rule: 'fires at the deadline and publishes what expired',
      deadline: 3_000,
      waitMs: 2_005,
      fired: 1,
    },
    { rule: 'does not fire before the deadline', deadline: 3_000, waitMs: 1_999, fired: 0 },
    { rule: 'fires at once for a deadline already past', deadline: 500, waitMs: 5, fired: 1 },
    {
      rule: 'sets no timer when nothing is pending',
      deadline: undefined,
      waitMs: 60_000,
      fired: 0,
    },
  ])('$rule', async ({ deadline, waitMs, fired }) => {
    const shard = shardWithDeadline(deadline);
    const { timers, expired, published } = setup(shard);
    timers.arm(0);
    await jest.advanceTimersByTimeAsync(waitMs);
    expect(expired).toHaveLength(fired);
    expect(published).toHaveLength(fired);
  });

  it('publishes nothing when the partition was restored again (a new shard) before it fired', async () => {
    const { shards, timers, expired, published } = setup(shardWithDeadline(2_000));
    timers.arm(0);
    shards.set(0, shardWithDeadline(undefined));
    await jest.advanceTimersByTimeAsync(1_005);
    expect(expired).toEqual([]);
    expect(published).toEqual([[]]);
  });

  it('does not fire for a released partition', async () => {
    const { timers, expired } = setup(shardWithDeadline(2_000));
    timers.arm(0);
    timers.clear(0);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(expired).toEqual([]);
  });
});
