import { mapConcurrent } from './concurrency';

describe('mapConcurrent', () => {
  it('keeps at most `limit` calls in flight and returns results in input order', async () => {
    let inFlight = 0;
    let peak = 0;
    const results = await mapConcurrent([5, 1, 4, 2, 3, 0], 2, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      for (let i = 0; i < n; i++) await Promise.resolve();
      inFlight--;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30, 0]);
    expect(peak).toBe(2);
  });

  it('starts nothing new after a failure and throws the first error', async () => {
    const started: number[] = [];
    const run = mapConcurrent([0, 1, 2, 3, 4], 1, (n) => {
      started.push(n);
      return n === 1 ? Promise.reject(new Error('boom')) : Promise.resolve(n);
    });
    await expect(run).rejects.toThrow('boom');
    expect(started).toEqual([0, 1]);
  });

  it('handles an empty list', async () => {
    await expect(mapConcurrent([], 4, () => Promise.resolve(1))).resolves.toEqual([]);
  });
});
