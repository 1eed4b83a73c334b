import type { RealRun } from './real-containers';
import { realBootTable, realStopTable } from './real-report';

const run = (n: number, repeat: number, raw: number, kpm: number, lags: number[]): RealRun => ({
  n,
  repeat,
  kpm: {
    cliToAllRunningMs: kpm + 500,
    acceptedToAllRunningMs: kpm,
    terminateMs: 900,
    lagsMs: lags,
    finishedAtLagsMs: lags.map((l) => l + 400),
  },
  raw: { createToAllRunningMs: raw, deleteToAllExitedMs: 700, deleteToAllGoneMs: 800 },
});

describe('the real-container report', () => {
  const runs = [
    run(10, 0, 1000, 1200, [5, 7]),
    run(1, 0, 400, 600, [3]),
    run(10, 1, 1000, 1500, [9, 30]),
    run(10, 2, 2000, 2200, [4, 6]),
  ];

  it('gives each N its median ratio and the spread of the repeats, smallest N first', () => {
    const lines = realBootTable(runs).split('\n');
    expect(lines[2]).toMatch(/^\| 1 \(1\) +\| 400 +\| 600 +\| 1\.50× +\| 1,100 +\| 2\.75× +\|$/);
    expect(lines[3]).toMatch(/^\| 10 \(3\) +\| 1,000 +\| 1,500 +\| 1\.20× \(1\.10–1\.50\) +\|/);
  });

  it('gives the lag percentiles over every pod of every repeat of N', () => {
    const lines = realStopTable(runs).split('\n');
    expect(lines[3]).toMatch(
      /^\| 10 \(3\) +\| 700 +\| 800 +\| 900 +\| 6 \/ 30 \/ 30 \(6\) +\| 406 \/ 430 +\|$/,
    );
  });
});
