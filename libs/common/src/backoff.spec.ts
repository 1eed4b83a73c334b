import { backoffDelay, delay } from './backoff';

describe('backoffDelay', () => {
  const policy = { initialMs: 100, maxMs: 1000, factor: 2 };

  it('grows exponentially up to the cap when the jitter draws its maximum', () => {
    const top = () => 1;
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy, top))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('draws uniformly below the ceiling (full jitter)', () => {
    expect(backoffDelay(3, policy, () => 0.5)).toBe(200);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
  });
});

describe('delay', () => {
  it('resolves early when aborted', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const sleeping = delay(60_000, controller.signal);
    controller.abort();
    await sleeping;
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
