/**
 * A small benchmark harness: each case runs a warm-up, then timed rounds; we report the median
 * and ratios between cases of one run (machines are noisy, ratios measured together are not).
 */
export interface BenchCase {
  name: string;
  /** Units of work one call does (records, pods …), for per-unit throughput. */
  units: number;
  unit: string;
  run: () => unknown;
}

export interface BenchResult {
  name: string;
  unit: string;
  medianMs: number;
  perSecond: number;
  heapPerUnitBytes?: number;
}

export interface BenchSuite {
  title: string;
  cases: () => Promise<BenchCase[]> | BenchCase[];
  /** Ratio rows of time per unit: [label, numerator case, denominator case] by case name. */
  ratios?: Array<[string, string, string]>;
  teardown?: () => Promise<void>;
}

export async function measure(benchCase: BenchCase, rounds = 7, warmup = 2): Promise<BenchResult> {
  for (let i = 0; i < warmup; i++) await benchCase.run();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = process.hrtime.bigint();
    await benchCase.run();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  const medianMs = times[Math.floor(times.length / 2)];
  return {
    name: benchCase.name,
    unit: benchCase.unit,
    medianMs,
    perSecond: (benchCase.units / medianMs) * 1000,
  };
}

/** Retained heap per unit of what `build` returns (needs node --expose-gc). */
export function retainedHeapPerUnit(units: number, build: () => unknown): number | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return undefined;
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = build();
  gc();
  const after = process.memoryUsage().heapUsed;
  void kept;
  return Math.max(0, (after - before) / units);
}

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(headers),
    `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`,
    ...rows.map(line),
  ].join('\n');
}

export function formatNumber(value: number): string {
  if (value >= 100) return Math.round(value).toLocaleString('en-US');
  return value.toPrecision(3);
}
