import type { TopLevelSpec } from 'vega-lite/build/index';
import { table } from '../harness';
import type { MemoryParts } from '../e2e/kpm-services';
import { percentile } from '../e2e/stats';

/** One command the soak sent: when it ended, how long it took, whether it succeeded. */
export interface CommandSample {
  type: string;
  endedAtMs: number;
  ms: number;
  ok: boolean;
}

export interface SoakMinute {
  minute: number;
  commands: number;
  failed: number;
  /** Command latency (send → completion), ms. */
  p50: number;
  p99: number;
  max: number;
  /** Pod seen ended → its termination record, ms (pods that ended this minute). */
  lagP50?: number;
  lagP99?: number;
  rssMb: Record<string, number>;
  heapMb: Record<string, number>;
  /** Where each service's memory is (absent in results written before it was sampled). */
  memory?: Record<string, MemoryParts>;
}

export interface SoakCheck {
  commands: number;
  /** Commands with no completion, or more than one. */
  missing: string[];
  duplicated: string[];
  pods: number;
  podsWithoutTermination: string[];
  podsWithSeveralTerminations: string[];
}

/** Latency and lag of one minute; the memory is filled in by the sampler. */
export function minuteOf(
  minute: number,
  samples: readonly CommandSample[],
  lags: readonly number[],
): Omit<SoakMinute, 'rssMb' | 'heapMb' | 'memory'> {
  const ms = samples.map((s) => s.ms);
  const pct = (values: readonly number[], p: number) =>
    values.length ? Math.round(percentile(values, p)) : 0;
  return {
    minute,
    commands: samples.length,
    failed: samples.filter((s) => !s.ok).length,
    p50: pct(ms, 50),
    p99: pct(ms, 99),
    max: ms.length ? Math.round(Math.max(...ms)) : 0,
    ...(lags.length ? { lagP50: pct(lags, 50), lagP99: pct(lags, 99) } : {}),
  };
}

export function minuteTable(minutes: readonly SoakMinute[]): string {
  const services = [...new Set(minutes.flatMap((m) => Object.keys(m.rssMb)))].sort();
  return table(
    [
      'minute',
      'commands (failed)',
      'latency p50 / p99 / max ms',
      'lag p50 / p99 ms',
      ...services.map((s) => `${s} RSS / heap MB`),
    ],
    minutes.map((m) => [
      String(m.minute),
      `${m.commands} (${m.failed})`,
      `${m.p50} / ${m.p99} / ${m.max}`,
      m.lagP50 === undefined ? '' : `${m.lagP50} / ${m.lagP99}`,
      ...services.map((s) => `${m.rssMb[s] ?? ''} / ${m.heapMb[s] ?? ''}`),
    ]),
  );
}

/**
 * The two minutes a drift is measured between: minute 5 (or the first, in a run shorter than 6
 * minutes) and the last, among the minutes `sampled` keeps; none with fewer than two.
 */
function driftSpan(
  minutes: readonly SoakMinute[],
  sampled: (minute: SoakMinute) => boolean,
): { base: SoakMinute; last: SoakMinute } | undefined {
  const full = minutes.filter(sampled);
  if (full.length < 2) return undefined;
  const last = full[full.length - 1];
  const base = full.find((m) => m.minute === 5 && last.minute > 5) ?? full[0];
  return { base, last };
}

/**
 * The goal: RSS and latency at the last minute within 5 % of minute 5 (or of the first
 * minute, in a run shorter than 6 minutes). One row per figure: minute 5, last, change.
 */
export function driftTable(minutes: readonly SoakMinute[]): string {
  const span = driftSpan(minutes, (m) => Object.keys(m.rssMb).length > 0);
  if (!span) return '';
  const { base, last } = span;
  const rows: Array<[string, number, number]> = [
    ...Object.keys(last.rssMb)
      .sort()
      .map((s): [string, number, number] => [`${s} RSS MB`, base.rssMb[s], last.rssMb[s]]),
    ['latency p50 ms', base.p50, last.p50],
    ['latency p99 ms', base.p99, last.p99],
  ];
  return table(
    ['figure', `minute ${base.minute}`, `minute ${last.minute}`, 'change', 'within 5 %'],
    rows.map(([what, from, to]) => {
      const change = from ? (to - from) / from : 0;
      const pct = `${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} %`;
      return [what, String(from), String(to), pct, Math.abs(change) <= 0.05 ? 'yes' : 'no'];
    }),
  );
}

/**
 * Where each service's RSS went between the drift table's two minutes: the V8 heap in use and
 * as reserved, the memory outside it V8 is told of (Buffers), and the rest of the RSS (code,
 * stacks, the allocator's own pages), which no metric names.
 */
export function memoryTable(minutes: readonly SoakMinute[]): string {
  const span = driftSpan(
    minutes,
    (m) => m.memory !== undefined && Object.keys(m.memory).length > 0,
  );
  if (!span) return '';
  const { base, last } = span;
  const parts = (m: SoakMinute, service: string): Array<[string, number]> => {
    const p = m.memory![service];
    const rss = m.rssMb[service];
    return [
      ['RSS', rss],
      ['V8 heap in use', p.heapUsedMb],
      ['V8 heap reserved', p.heapTotalMb],
      ['outside the heap, told to V8', p.externalMb],
      ['the rest of the RSS', rss - p.heapTotalMb - p.externalMb],
    ];
  };
  const services = Object.keys(last.memory!)
    .filter((s) => base.memory![s] && base.rssMb[s] !== undefined && last.rssMb[s] !== undefined)
    .sort();
  return table(
    ['service', 'MB', `minute ${base.minute}`, `minute ${last.minute}`, 'change MB'],
    services.flatMap((service) => {
      const to = parts(last, service);
      return parts(base, service).map(([what, from], i) => {
        const change = to[i][1] - from;
        return [
          service,
          what,
          String(from),
          String(to[i][1]),
          `${change >= 0 ? '+' : ''}${change}`,
        ];
      });
    }),
  );
}

export function checkTable(check: SoakCheck): string {
  const list = (ids: string[]) => (ids.length ? ids.slice(0, 5).join(', ') : 'none');
  return table(
    ['check', 'counted', 'lost or doubled'],
    [
      [
        'every command exactly one completion',
        String(check.commands),
        `missing ${list(check.missing)}; doubled ${list(check.duplicated)}`,
      ],
      [
        'every pod exactly one termination',
        String(check.pods),
        `missing ${list(check.podsWithoutTermination)}; doubled ${list(check.podsWithSeveralTerminations)}`,
      ],
    ],
  );
}

/** RSS of each service and the command latency p99, minute by minute. */
export function soakPlot(minutes: readonly SoakMinute[]): TopLevelSpec {
  const rss = minutes.flatMap((m) =>
    Object.entries(m.rssMb).map(([service, mb]) => ({ minute: m.minute, mb, service })),
  );
  const p99 = minutes.map((m) => ({ minute: m.minute, ms: m.p99 }));
  const x = { field: 'minute', type: 'quantitative', axis: { title: 'minute' } } as const;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'Soak: resident memory and command latency p99, minute by minute',
    background: 'white',
    vconcat: [
      {
        width: 520,
        height: 220,
        data: { values: rss },
        mark: { type: 'line', point: true },
        encoding: {
          x,
          y: { field: 'mb', type: 'quantitative', axis: { title: 'RSS (MB)' } },
          color: { field: 'service', type: 'nominal', legend: { orient: 'bottom', title: null } },
        },
      },
      {
        width: 520,
        height: 160,
        data: { values: p99 },
        mark: { type: 'line', point: true },
        encoding: {
          x,
          y: { field: 'ms', type: 'quantitative', axis: { title: 'command latency p99 (ms)' } },
        },
      },
    ],
  };
}
