import { waitFor } from './wait';

describe('waitFor', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('waits past its timeout while the process makes progress', async () => {
    let polls = 0;
    const waiting = waitFor('broker', () => Promise.resolve(++polls === 100), {
      timeoutMs: 1_000,
      intervalMs: 100,
      progress: () => polls,
    });
    await jest.advanceTimersByTimeAsync(10_000);
    await expect(waiting).resolves.toBeUndefined();
    expect(polls).toBe(100);
  });

  it('gives up once the process has made no progress for its timeout', async () => {
    let polls = 0;
    const waiting = waitFor('broker', () => Promise.resolve((++polls, false)), {
      timeoutMs: 1_000,
      intervalMs: 100,
      progress: () => Math.min(polls, 30),
    });
    const outcome = expect(waiting).rejects.toThrow(
      /kpm: broker ready not reached after no progress for 1000 ms/,
    );
    await jest.advanceTimersByTimeAsync(5_000);
    await outcome;
    // 30 polls of progress, then 1 s (10 polls) without.
    expect(polls).toBe(40);
  });

  it('without a progress mark, gives up at its timeout', async () => {
    let polls = 0;
    const waiting = waitFor('broker', () => Promise.resolve((++polls, false)), {
      timeoutMs: 1_000,
      intervalMs: 100,
    });
    const outcome = expect(waiting).rejects.toThrow(/kpm: broker ready not reached within 1000 ms/);
    await jest.advanceTimersByTimeAsync(5_000);
    await outcome;
    // At 0, 100, …, 1,000 ms: the last check is at the deadline.
    expect(polls).toBe(11);
  });
});
