import { table } from '../harness';
import {
  GOALS,
  type BurstResult,
  type E2eResults,
  type LagResult,
  type RestorePoint,
  type SizeResult,
} from './results';

const ms = (value: number): string => Math.round(value).toLocaleString('en-US');
const ratio = (value: number): string => `${value.toFixed(2)}×`;
const met = (ok: boolean): string => (ok ? 'met' : 'missed');

/** kpm's boot against the raw limit: accepted → completion over the raw create time. */
export function bootRatio(size: SizeResult): number {
  return size.boot.acceptedToCompletionMs / size.raw.createdMs;
}

/** What the CLI adds to the completion: start-up, sending, waiting for the answer, exit. */
export function cliOverheadMs(timing: SizeResult['boot']): number {
  return timing.cliMs - timing.acceptedToCompletionMs;
}

export function bootTable(sizes: readonly SizeResult[]): string {
  return table(
    [
      'N',
      'raw create ms',
      'raw all Running ms',
      'kpm accepted → completion ms',
      'kpm / raw create',
      '`kpm boot --wait` ms',
      'CLI − completion ms',
    ],
    sizes.map((s) => [
      String(s.n),
      ms(s.raw.createdMs),
      ms(s.raw.runningMs),
      `${ms(s.boot.acceptedToCompletionMs)} (${s.boot.status})`,
      ratio(bootRatio(s)),
      ms(s.boot.cliMs),
      ms(cliOverheadMs(s.boot)),
    ]),
  );
}

export function terminateTable(sizes: readonly SizeResult[]): string {
  return table(
    [
      'N',
      'raw delete requests ms',
      'raw all gone ms',
      'kpm accepted → completion ms',
      'kpm / raw gone',
      '`kpm terminate --wait` ms',
    ],
    sizes.map((s) => [
      String(s.n),
      ms(s.raw.deletedMs),
      ms(s.raw.goneMs),
      `${ms(s.terminate.acceptedToCompletionMs)} (${s.terminate.status})`,
      ratio(s.terminate.acceptedToCompletionMs / s.raw.goneMs),
      ms(s.terminate.cliMs),
    ]),
  );
}

export function lagTable(lag: LagResult): string {
  const { summary } = lag;
  return table(
    ['pods', 'min ms', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'],
    [[summary.count, summary.min, summary.p50, summary.p90, summary.p99, summary.max].map(String)],
  );
}

/** Records of history restored per second (from the snapshot: the rate it amounts to). */
export function restoreRate(point: RestorePoint): number {
  return point.records / point.seconds;
}

export function restoreTable(points: readonly RestorePoint[]): string {
  return table(
    [
      'processes in history',
      'records',
      'from snapshot s',
      'facts replayed',
      'records/s',
      'whole history s',
      'facts replayed',
      'records/s',
      'state RSS after MB',
    ],
    points.map((p) => [
      String(p.processes),
      p.records.toLocaleString('en-US'),
      p.seconds.toFixed(2),
      p.replayed.toLocaleString('en-US'),
      ms(restoreRate(p)),
      p.wholeSeconds.toFixed(2),
      p.wholeReplayed.toLocaleString('en-US'),
      ms(p.records / p.wholeSeconds),
      String(p.rssMb),
    ]),
  );
}

/** kpm's drain rate over the raw limit's for as many pods (1 = as fast as client-go). */
export function burstRatio(burst: BurstResult): number {
  return burst.podsPerSecond / burst.rawPodsPerSecond;
}

const statusText = (statuses: Record<string, number>): string =>
  Object.entries(statuses)
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');

export function burstTable(burst: BurstResult): string {
  return table(
    [
      'sessions × processes',
      'raw all gone ms',
      'raw pods/s',
      'kpm drain ms',
      'kpm pods/s',
      'kpm / raw rate',
      'last completion ms',
      'completions',
    ],
    [
      [
        `${burst.sessions} × ${burst.size}`,
        ms(burst.raw.goneMs),
        ms(burst.rawPodsPerSecond),
        ms(burst.drainMs),
        ms(burst.podsPerSecond),
        ratio(burstRatio(burst)),
        ms(burst.lastCompletionMs),
        statusText(burst.statuses),
      ],
    ],
  );
}

export function memoryTable(results: E2eResults): string {
  const services = Object.keys(results.rssMbIdle);
  const after = results.sizes.map((s) => `after boot of ${s.n} MB`);
  return table(
    ['service', 'idle MB', ...after, 'peak MB'],
    services.map((service) => [
      service,
      String(results.rssMbIdle[service]),
      ...results.sizes.map((s) => String(s.rssMbAfterBoot[service] ?? '')),
      String(results.rssMbPeak[service]),
    ]),
  );
}

/** The goals, each met or missed by how much, at every measured size. */
export function goalsTable(results: E2eResults): string {
  const rows = results.sizes.flatMap((s) => [
    [
      `accepted → completion ≤ ${GOALS.completionOverRawLimit}× raw create, N=${s.n}`,
      ratio(bootRatio(s)),
      met(bootRatio(s) <= GOALS.completionOverRawLimit),
    ],
    [
      `\`kpm boot --wait\` ≤ completion + ${GOALS.cliOverCompletionMs} ms, N=${s.n}`,
      `+${ms(cliOverheadMs(s.boot))} ms`,
      met(cliOverheadMs(s.boot) <= GOALS.cliOverCompletionMs),
    ],
  ]);
  if (results.lag) {
    const p99 = results.lag.summary.p99;
    rows.push([
      `termination lag p99 ≤ ${GOALS.lagP99Ms} ms (${results.lag.pods} pods)`,
      `${p99} ms`,
      met(p99 <= GOALS.lagP99Ms),
    ]);
  }
  const largest = results.restore?.[results.restore.length - 1];
  if (largest) {
    const records = largest.records.toLocaleString('en-US');
    rows.push(
      [
        `restore ≥ ${GOALS.restoreRecordsPerSecond.toLocaleString('en-US')} records/s of history (${records} records)`,
        `${ms(restoreRate(largest))} records/s`,
        met(restoreRate(largest) >= GOALS.restoreRecordsPerSecond),
      ],
      [
        `restore of ${records} records ≤ ${GOALS.restoreSeconds} s`,
        `${largest.seconds.toFixed(2)} s`,
        met(largest.seconds <= GOALS.restoreSeconds),
      ],
    );
  }
  if (results.burst) rows.push(...burstGoals(results.burst));
  return table(['goal', 'measured', 'verdict'], rows);
}

function burstGoals(burst: BurstResult): string[][] {
  const label = `${burst.sessions} × ${burst.size}`;
  const succeeded = burst.statuses.succeeded ?? 0;
  return [
    [
      `${label} terminates at once drain at ≥ ${ratio(GOALS.burstRateOverRaw)} the raw rate`,
      ratio(burstRatio(burst)),
      met(burstRatio(burst) >= GOALS.burstRateOverRaw),
    ],
    [
      `every terminate of the ${label} burst succeeds`,
      `${succeeded} of ${burst.sessions}`,
      met(succeeded === burst.sessions),
    ],
  ];
}

/** The whole markdown report of one run. */
export function markdownReport(results: E2eResults): string {
  const parts = [
    `# End-to-end benchmark (\`npm run bench:e2e\`)`,
    `Measured ${results.measuredAt} on ${results.machine}, one run, the local stack.`,
    `## Boot: kpm against the API server's own limit\n\n${bootTable(results.sizes)}`,
    `## Terminate: kpm against deletes-and-wait\n\n${terminateTable(results.sizes)}`,
  ];
  if (results.lag) {
    parts.push(
      `## Termination lag, ${results.lag.pods} pods ending at once\n\n${lagTable(results.lag)}`,
    );
  }
  if (results.restore?.length) {
    parts.push(`## State service restore against its history\n\n${restoreTable(results.restore)}`);
  }
  if (results.burst) {
    parts.push(
      `## ${results.burst.sessions} sessions' terminates at once\n\n${burstTable(results.burst)}`,
    );
  }
  parts.push(`## Resident memory of the services\n\n${memoryTable(results)}`);
  parts.push(`## Goals\n\n${goalsTable(results)}`);
  return `${parts.join('\n\n')}\n`;
}
