import { VirtualClock } from './clock';
import { retry, type RetryOptions } from './retry';

/** Work that fails `failures` times (with the given errors), then answers 'done'. */
function flaky(failures: Error[]) {
  const calls: number[] = [];
  const work = (attempt: number) => {
    calls.push(attempt);
    return attempt <= failures.length
      ? Promise.reject(failures[attempt - 1])
      : Promise.resolve('done');
  };
  return { calls, work };
}

const backoff = { initialMs: 100, maxMs: 1_000 };

describe('retry', () => {
  it.each<[string, Partial<RetryOptions>, Error[], string | Error, number[]]>([
    ['succeeds after failures', {}, [new Error('a'), new Error('b')], 'done', [1, 2, 3]],
    [
      'gives up at once on a failure that cannot succeed later',
      { retryable: (e) => (e as Error).message !== 'invalid' },
      [new Error('busy'), new Error('invalid')],
      new Error('invalid'),
      [1, 2],
    ],
    [
      'gives up after its attempts with the last failure',
      { attempts: 2 },
      [new Error('a'), new Error('b'), new Error('c')],
      new Error('b'),
      [1, 2],
    ],
    [
      'gives up when the next wait would pass its deadline',
      { deadlineMs: 50 },
      [new Error('a'), new Error('b')],
      new Error('a'),
      [1],
    ],
  ])('%s', async (_, options, failures, outcome, calls) => {
    const clock = new VirtualClock(0);
    const run = flaky(failures);
    const result = retry(run.work, {
      backoff: { initialMs: 100, maxMs: 100 },
      clock,
      random: () => 1,
      ...options,
    });
    if (outcome instanceof Error) await expect(result).rejects.toThrow(outcome.message);
    else await expect(result).resolves.toBe(outcome);
    expect(run.calls).toEqual(calls);
  });

  it('tells of each retried failure before waiting, and waits per the backoff', async () => {
    const clock = new VirtualClock(0);
    const told: Array<[string, number, number]> = [];
    const run = flaky([new Error('a'), new Error('b')]);
    await retry(run.work, {
      backoff,
      clock,
      random: () => 1,
      onRetry: (e, attempt) => void told.push([(e as Error).message, attempt, clock.now()]),
    });
    expect(told).toEqual([
      ['a', 1, 0],
      ['b', 2, 100],
    ]);
    expect(clock.now()).toBe(100 + 200);
  });

  it('stops retrying when its signal aborts, with the last failure', async () => {
    const clock = new VirtualClock(0);
    const stop = new AbortController();
    const run = flaky(Array.from({ length: 100 }, (_, i) => new Error(`f${i + 1}`)));
    clock.schedule(1_500, () => stop.abort());
    await expect(retry(run.work, { backoff, clock, signal: stop.signal })).rejects.toThrow(
      /^f\d+$/,
    );
    expect(run.calls.length).toBeLessThan(100);
  });
});
