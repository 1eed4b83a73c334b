import { bootTable, cliOverheadMs, goalsTable, markdownReport, restoreTable } from './report';
import type { E2eResults, SizeResult } from './results';

function size(n: number, createdMs: number, completionMs: number, cliMs: number): SizeResult {
  return {
    n,
    raw: { pods: n, createdMs, runningMs: createdMs + 100, deletedMs: 50, goneMs: 2000 },
    boot: { acceptedToCompletionMs: completionMs, cliMs, status: 'succeeded' },
    terminate: { acceptedToCompletionMs: 3000, cliMs: 4000, status: 'succeeded' },
    rssMbAfterBoot: { watcher: 160, state: 120 },
  };
}

const results: E2eResults = {
  machine: '2 cores, test CPU',
  measuredAt: '2026-11-22T10:00:00Z',
  sizes: [size(100, 400, 440, 1800), size(1000, 3000, 4500, 5000)],
  lag: {
    pods: 500,
    summary: { count: 500, min: 2, p50: 9, p90: 30, p99: 60, max: 90 },
    cdf: [],
  },
  restore: [
    {
      processes: 1000,
      records: 2002,
      seconds: 0.5,
      replayed: 0,
      wholeSeconds: 0.6,
      wholeReplayed: 2002,
      rssMb: 120,
    },
    {
      processes: 10000,
      records: 20020,
      seconds: 2,
      replayed: 0,
      wholeSeconds: 4,
      wholeReplayed: 20020,
      rssMb: 200,
    },
  ],
  burst: {
    sessions: 12,
    size: 1000,
    raw: { pods: 12000, createdMs: 90000, runningMs: 120000, deletedMs: 40000, goneMs: 200000 },
    rawPodsPerSecond: 60,
    terminationsSeen: 12000,
    drainMs: 60000,
    podsPerSecond: 200,
    lastCompletionMs: 61000,
    statuses: { succeeded: 11, timed_out: 1 },
  },
  rssMbIdle: { watcher: 150, state: 110 },
  rssMbPeak: { watcher: 170, state: 130 },
};

describe('the e2e report', () => {
  it('puts kpm beside the raw limit with the ratio, one row per N', () => {
    const lines = bootTable(results.sizes).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(
      /^\| 100 +\| 400 +\| 500 +\| 440 \(succeeded\) +\| 1\.10× +\| 1,800 +\| 1,360 +\|$/,
    );
    expect(lines[3]).toContain('| 1.50× ');
  });

  it('what the CLI adds is its wall time less the completion time', () => {
    expect(cliOverheadMs(results.sizes[1].boot)).toBe(500);
  });

  it.each([
    ['≤ 1.2× raw create, N=100', '1.10×', 'met'],
    ['≤ 1.2× raw create, N=1000', '1.50×', 'missed'],
    ['≤ completion + 1500 ms, N=100', '+1,360 ms', 'met'],
    ['≤ completion + 1500 ms, N=1000', '+500 ms', 'met'],
    ['lag p99 ≤ 50 ms (500 pods)', '60 ms', 'missed'],
    ['restore ≥ 50,000 records/s of history (20,020 records)', '10,010 records/s', 'missed'],
    ['restore of 20,020 records ≤ 30 s', '2.00 s', 'met'],
    ['12 × 1000 terminates at once drain at ≥ 0.83× the raw rate', '3.33×', 'met'],
    ['every terminate of the 12 × 1000 burst succeeds', '11 of 12', 'missed'],
  ])('judges the goal "%s": %s, %s', (goal, measured, verdict) => {
    const row = goalsTable(results)
      .split('\n')
      .find((line) => line.includes(goal));
    expect(row).toBeDefined();
    expect(row!.split('|').map((cell) => cell.trim())).toEqual(
      expect.arrayContaining([measured, verdict]),
    );
  });

  it('shows each restore from the snapshot beside the whole history it no longer reads', () => {
    const row = restoreTable(results.restore!)
      .split('\n')
      .find((l) => l.includes('| 10000 '));
    expect(row!.split('|').map((c) => c.trim())).toEqual([
      '',
      '10000',
      '20,020',
      '2.00',
      '0',
      '10,010',
      '4.00',
      '20,020',
      '5,005',
      '200',
      '',
    ]);
  });

  it('has every section, and no lag section when the lag was not measured', () => {
    const full = markdownReport(results);
    for (const heading of [
      '## Boot',
      '## Terminate',
      '## Termination lag',
      '## Resident memory',
      '## State service restore',
      "## 12 sessions' terminates at once",
      '## Goals',
    ]) {
      expect(full).toContain(heading);
    }
    expect(full).toContain('| 12 × 1000 ');
    expect(full).toContain('| 11 succeeded, 1 timed_out ');
    const partial = markdownReport({
      ...results,
      lag: undefined,
      restore: undefined,
      burst: undefined,
    });
    expect(partial).not.toContain('## Termination lag');
    expect(partial).not.toContain('## State service restore');
    expect(partial).not.toContain('lag p99');
    expect(partial).not.toContain('terminates at once');
    expect(full).toContain(
      '| watcher | 150     | 160                  | 160                   | 170     |',
    );
  });
});
