import {
  bootTable,
  cliOverheadMs,
  commandSteps,
  cpuTable,
  goalsTable,
  markdownReport,
  restartTable,
  restoreTable,
  stepsTable,
} from './report';
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
  stateHeapPerProcessBytes: 2900,
};

describe('the e2e report', () => {
  it("splits a command's time into its steps, from the CLI's start to its exit", () => {
    const timing = {
      acceptedToCompletionMs: 700,
      cliMs: 1500,
      status: 'succeeded',
      moments: {
        cliStartedAtMs: 10_000,
        commandAtMs: 10_600,
        acceptedAtMs: 10_650,
        firstFactAtMs: 11_000,
        lastFactAtMs: 11_320,
        completionAtMs: 11_350,
        cliExitedAtMs: 11_500,
      },
    };
    expect(commandSteps(timing)).toEqual([600, 50, 350, 320, 30, 150]);
    const boot100 = { ...size(100, 400, 700, 1500), boot: timing };
    expect(stepsTable([boot100]).split('\n')[2]).toMatch(
      /^\| boot 100 +\| 600 +\| 50 +\| 350 +\| 320 +\| 30 +\| 150 +\|$/,
    );
  });

  it('leaves a step blank when it was not seen (a terminate of no pods has no facts)', () => {
    const timing = {
      acceptedToCompletionMs: 30,
      cliMs: 900,
      status: 'succeeded',
      moments: {
        acceptedAtMs: 5_000,
        completionAtMs: 5_030,
        cliStartedAtMs: 4_200,
        cliExitedAtMs: 5_100,
      },
    };
    expect(commandSteps(timing)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      70,
    ]);
  });

  it('puts a restart of one process beside one pod deleted, gone and created, for sizes that measured it', () => {
    const measured: SizeResult = {
      ...size(200, 900, 1200, 2000),
      restart: {
        process: 'ru-00100',
        raw: { pods: 1, createdMs: 20, runningMs: 900, deletedMs: 10, goneMs: 1_180 },
        kpm: { acceptedToCompletionMs: 1_500, cliMs: 2_400, status: 'succeeded' },
      },
    };
    const lines = restartTable([size(100, 400, 440, 1800), measured]).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2].split('|').map((cell) => cell.trim())).toEqual([
      '',
      '200',
      'ru-00100',
      '1,200',
      '1,500 (succeeded)',
      '1.25×',
      '2,400',
      '900',
      '',
    ]);
  });

  it('gives the CPU each service spent on a command, and per process', () => {
    const n100 = size(100, 400, 600, 1500);
    n100.boot.serviceCpuMs = { 'boot-worker': 250, state: 40, watcher: 60 };
    const lines = cpuTable([n100]).split('\n');
    expect(lines[0]).toMatch(/boot-worker CPU ms \(per process\) .*state CPU ms .*watcher CPU ms/);
    expect(lines[2]).toMatch(
      /^\| boot 100 +\| 250 \(2,500 µs\) +\| 40 \(400 µs\) +\| 60 \(600 µs\) +\|$/,
    );
    expect(lines[3]).toMatch(/^\| terminate 100 +\| +\| +\| +\|$/);
  });

  it('gives the spread of the repeats beside the median ratio', () => {
    const median = size(100, 400, 600, 1500);
    const repeated = {
      ...median,
      repeats: [size(100, 400, 500, 1400), median, size(100, 400, 900, 1800)],
    };
    expect(bootTable([repeated])).toContain('1.50× (1.25–2.25, 3 runs)');
  });

  it('puts kpm beside the raw limit with the ratio, one row per N', () => {
    const lines = bootTable(results.sizes).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(
      /^\| 100 +\| 400 +\| 500 +\| 440 \(succeeded\) +\| 1\.10× +\| 1,800 +\| 1,360 +\|$/,
    );
    expect(lines[3]).toContain('| 1.50× ');
  });

  it('names a DUNE-shaped session by its processes and hosts', () => {
    const dune = { ...size(200, 400, 440, 1800), hosts: 110 };
    expect(bootTable([dune]).split('\n')[2]).toMatch(/^\| 200@110 +\|/);
  });

  it('what the CLI adds is its wall time less the completion time', () => {
    expect(cliOverheadMs(results.sizes[1].boot)).toBe(500);
  });

  it.each([
    ['≤ 1.2× raw create, N=100', '1.10×', 'met'],
    ['≤ 1.1× raw create, N=1000', '1.50×', 'missed'],
    ['terminate ≤ 1.1× raw deletes-and-wait, N=100', '1.50×', 'missed'],
    ['≤ completion + 300 ms, N=100', '+1,360 ms', 'missed'],
    ['≤ completion + 429 ms, N=1000', '+500 ms', 'missed'],
    ['lag p99 ≤ 30 ms (500 pods)', '60 ms', 'missed'],
    ['watcher idle RSS ≤ 120 MB', '150 MB', 'missed'],
    ['state idle RSS ≤ 120 MB', '110 MB', 'met'],
    ['state heap per process booted and killed ≤ 3,072 bytes', '2,900 bytes', 'met'],
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
