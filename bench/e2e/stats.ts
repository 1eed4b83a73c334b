/** Percentiles and distributions of measured durations (pure: unit-tested beside). */

export interface Summary {
  count: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** The nearest-rank percentile `p` (0 < p ≤ 100) of `values`: a value that was measured. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile: no values');
  if (!(p > 0 && p <= 100)) throw new Error(`percentile: p must be in (0, 100], got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((p / 100) * sorted.length) - 1];
}

export function summarize(values: readonly number[]): Summary {
  return {
    count: values.length,
    min: Math.min(...values),
    p50: percentile(values, 50),
    p90: percentile(values, 90),
    p99: percentile(values, 99),
    max: Math.max(...values),
  };
}

export interface CdfPoint {
  value: number;
  /** Fraction of the values ≤ `value`, 0–1. */
  fraction: number;
}

/** The empirical CDF, one point per distinct value (the last point of each run of equal values). */
export function cdf(values: readonly number[]): CdfPoint[] {
  const sorted = [...values].sort((a, b) => a - b);
  const points: CdfPoint[] = [];
  sorted.forEach((value, i) => {
    if (sorted[i + 1] === value) return;
    points.push({ value, fraction: (i + 1) / sorted.length });
  });
  return points;
}
