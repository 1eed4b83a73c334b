import { cdf, percentile, summarize } from './stats';

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 … 1, unsorted on purpose
  it.each([
    [50, 50],
    [90, 90],
    [99, 99],
    [100, 100],
    [0.5, 1],
  ])('p%s of 1…100 is %s', (p, expected) => {
    expect(percentile(hundred, p)).toBe(expected);
  });

  it('of one value is that value at any p', () => {
    expect(percentile([7], 1)).toBe(7);
    expect(percentile([7], 99)).toBe(7);
  });

  it('p99 of 500 values is the 495th smallest', () => {
    const values = Array.from({ length: 500 }, (_, i) => i + 1);
    expect(percentile(values, 99)).toBe(495);
  });

  it.each([
    [[], 50, /no values/],
    [[1], 0, /p must be in \(0, 100\]/],
    [[1], 101, /p must be in \(0, 100\]/],
  ])('refuses %j at p%s', (values, p, message) => {
    expect(() => percentile(values, p)).toThrow(message);
  });
});

describe('summarize', () => {
  it('gives count, extremes and percentiles without reordering its input', () => {
    const values = [5, 1, 3, 2, 4];
    expect(summarize(values)).toEqual({ count: 5, min: 1, p50: 3, p90: 5, p99: 5, max: 5 });
    expect(values).toEqual([5, 1, 3, 2, 4]);
  });
});

describe('cdf', () => {
  it('has one point per distinct value, rising to 1', () => {
    expect(cdf([3, 1, 2, 2])).toEqual([
      { value: 1, fraction: 0.25 },
      { value: 2, fraction: 0.75 },
      { value: 3, fraction: 1 },
    ]);
  });

  it('is empty for no values', () => {
    expect(cdf([])).toEqual([]);
  });
});
