import { checkTable, driftTable, memoryTable, minuteOf, type SoakMinute } from './soak-report';

const minute = (n: number, rss: number, p99: number): SoakMinute => ({
  ...minuteOf(n, [{ type: 'boot', endedAtMs: 0, ms: p99, ok: true }], []),
  rssMb: { state: rss },
  heapMb: { state: 20 },
});

describe('the soak report', () => {
  it("gives a minute's latency percentiles and failures, and lag only when pods ended", () => {
    const samples = [10, 20, 30, 40].map((ms, i) => ({ type: 'ps', endedAtMs: 0, ms, ok: i > 0 }));
    expect(minuteOf(3, samples, [])).toEqual({
      minute: 3,
      commands: 4,
      failed: 1,
      p50: 20,
      p99: 40,
      max: 40,
    });
    expect(minuteOf(3, [], [5, 7])).toMatchObject({ commands: 0, p99: 0, lagP50: 5, lagP99: 7 });
  });

  it('sets the last minute against minute 5, and says whether it is within 5 %', () => {
    const minutes = [1, 2, 3, 4, 5, 6, 7].map((n) => minute(n, n === 7 ? 110 : 100, 200));
    const lines = driftTable(minutes).split('\n');
    expect(lines[0]).toMatch(/\| minute 5 +\| minute 7 +\|/);
    expect(lines[2]).toMatch(/^\| state RSS MB +\| 100 +\| 110 +\| \+10\.0 % +\| no +\|$/);
    expect(lines[4]).toMatch(/^\| latency p99 ms +\| 200 +\| 200 +\| \+0\.0 % +\| yes +\|$/);
  });

  it('against the first minute when the run is too short for minute 5', () => {
    const lines = driftTable([minute(1, 100, 10), minute(2, 104, 10)]).split('\n');
    expect(lines[0]).toMatch(/\| minute 1 +\| minute 2 +\|/);
  });

  it('splits each RSS into the heap in use and reserved, the Buffers and the rest', () => {
    const sampled = (n: number, rss: number, heapTotalMb: number): SoakMinute => ({
      ...minute(n, rss, 10),
      memory: { state: { heapUsedMb: 40, heapTotalMb, externalMb: 10 } },
    });
    const lines = memoryTable([sampled(5, 130, 60), sampled(6, 150, 62)]).split('\n');
    expect(lines[0]).toMatch(/\| service +\| MB +\| minute 5 +\| minute 6 +\| change MB +\|/);
    expect(lines[2]).toMatch(/^\| state +\| RSS +\| 130 +\| 150 +\| \+20 +\|$/);
    expect(lines[4]).toMatch(/^\| state +\| V8 heap reserved +\| 60 +\| 62 +\| \+2 +\|$/);
    expect(lines[6]).toMatch(/^\| state +\| the rest of the RSS +\| 60 +\| 78 +\| \+18 +\|$/);
    // Results written before the parts were sampled have no such table.
    expect(memoryTable([minute(5, 100, 10), minute(6, 100, 10)])).toBe('');
  });

  it('names what was lost or doubled', () => {
    const text = checkTable({
      commands: 10,
      missing: ['c-1'],
      duplicated: [],
      pods: 4,
      podsWithoutTermination: [],
      podsWithSeveralTerminations: ['u-2'],
    });
    expect(text).toMatch(
      /every command exactly one completion \| 10 +\| missing c-1; doubled none/,
    );
    expect(text).toMatch(/every pod exactly one termination +\| 4 +\| missing none; doubled u-2/);
  });
});
