import { table } from '../harness';
import {
  bootRatioGoal,
  cliGoalMs,
  GOALS,
  type BurstResult,
  type E2eResults,
  type KpmCommandTiming,
  type LagResult,
  type RestartMeasurement,
  type RestorePoint,
  type SizeResult,
} from './results';

const ms = (value: number): string => Math.round(value).toLocaleString('en-US');
const ratio = (value: number): string => `${value.toFixed(2)}×`;
const met = (ok: boolean): string => (ok ? 'met' : 'missed');

/** "200@110" for a DUNE-shaped session over 110 hosts, "200" for N flat applications. */
export function sizeLabel(s: Pick<SizeResult, 'n' | 'hosts'>): string {
  return s.hosts ? `${s.n}@${s.hosts}` : String(s.n);
}

/** kpm's boot against the raw limit: accepted → completion over the raw create time. */
export function bootRatio(size: Pick<SizeResult, 'raw' | 'boot'>): number {
  return size.boot.acceptedToCompletionMs / size.raw.createdMs;
}

/** What the CLI adds to the completion: start-up, sending, waiting for the answer, exit. */
export function cliOverheadMs(timing: SizeResult['boot']): number {
  return timing.cliMs - timing.acceptedToCompletionMs;
}

/** "1.46× (1.16–2.14, 3 runs)": the reported ratio and, when N was repeated, the spread. */
function ratioWithSpread(
  size: SizeResult,
  ratioOf: (run: Pick<SizeResult, 'raw' | 'boot' | 'terminate'>) => number,
): string {
  const repeats = size.repeats ?? [];
  if (repeats.length < 2) return ratio(ratioOf(size));
  const all = repeats.map(ratioOf);
  const spread = `${Math.min(...all).toFixed(2)}–${Math.max(...all).toFixed(2)}`;
  return `${ratio(ratioOf(size))} (${spread}, ${repeats.length} runs)`;
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
      sizeLabel(s),
      ms(s.raw.createdMs),
      ms(s.raw.runningMs),
      `${ms(s.boot.acceptedToCompletionMs)} (${s.boot.status})`,
      ratioWithSpread(s, bootRatio),
      ms(s.boot.cliMs),
      ms(cliOverheadMs(s.boot)),
    ]),
  );
}

/** The raw floor of a restart: one pod deleted and gone, then created again. */
export function rawRestartMs(restart: RestartMeasurement): number {
  return restart.raw.goneMs + restart.raw.createdMs;
}

/** kpm's restart of one process against the raw floor (sizes measured before it: no row). */
export function restartTable(sizes: readonly SizeResult[]): string {
  return table(
    [
      'N',
      'process',
      'raw delete → gone + create ms',
      'kpm accepted → completion ms',
      'kpm / raw',
      '`kpm restart --wait` ms',
      'CLI − completion ms',
    ],
    sizes.flatMap((size) =>
      size.restart
        ? [
            [
              sizeLabel(size),
              size.restart.process,
              ms(rawRestartMs(size.restart)),
              `${ms(size.restart.kpm.acceptedToCompletionMs)} (${size.restart.kpm.status})`,
              ratio(size.restart.kpm.acceptedToCompletionMs / rawRestartMs(size.restart)),
              ms(size.restart.kpm.cliMs),
              ms(cliOverheadMs(size.restart.kpm)),
            ],
          ]
        : [],
    ),
  );
}

/** kpm's terminate against the raw deletes-and-wait. */
export function terminateRatio(size: Pick<SizeResult, 'raw' | 'terminate'>): number {
  return size.terminate.acceptedToCompletionMs / size.raw.goneMs;
}

/**
 * A command's time step by step, from its records' CreateTime and the CLI's clock: the CLI's
 * start to its command on Kafka, command → accepted, accepted → first fact, first → last fact,
 * last fact → completion, completion → the CLI's exit. A step not seen is blank.
 */
export function commandSteps(timing: KpmCommandTiming): (number | undefined)[] {
  const m = timing.moments;
  if (!m) return Array.from({ length: 6 }, () => undefined);
  const step = (from?: number, to?: number) =>
    from === undefined || to === undefined ? undefined : to - from;
  return [
    step(m.cliStartedAtMs, m.commandAtMs),
    step(m.commandAtMs, m.acceptedAtMs),
    step(m.acceptedAtMs, m.firstFactAtMs),
    step(m.firstFactAtMs, m.lastFactAtMs),
    step(m.lastFactAtMs, m.completionAtMs),
    step(m.completionAtMs, m.cliExitedAtMs),
  ];
}

/** A row per size and command (its boot, then its terminate): `command N`, then its `cells`. */
function commandRows(
  sizes: readonly SizeResult[],
  cells: (timing: KpmCommandTiming, n: number) => string[],
): string[][] {
  return sizes.flatMap((s) =>
    (
      [
        ['boot', s.boot],
        ['terminate', s.terminate],
      ] as const
    ).map(([command, timing]) => [`${command} ${sizeLabel(s)}`, ...cells(timing, s.n)]),
  );
}

export function stepsTable(sizes: readonly SizeResult[]): string {
  const rows = commandRows(sizes, (timing) =>
    commandSteps(timing).map((v) => (v === undefined ? '' : ms(v))),
  );
  return table(
    [
      'command, N',
      'CLI start → command ms',
      'command → accepted ms',
      'accepted → first fact ms',
      'first → last fact ms',
      'last fact → completion ms',
      'completion → CLI exit ms',
    ],
    rows,
  );
}

/** CPU the services spent on each command, in ms, and per process in µs. */
export function cpuTable(sizes: readonly SizeResult[]): string {
  const services = [
    ...new Set(sizes.flatMap((s) => Object.keys(s.boot.serviceCpuMs ?? {}))),
  ].sort();
  const cell = (timing: KpmCommandTiming, service: string, n: number) => {
    const cpu = timing.serviceCpuMs?.[service];
    return cpu === undefined ? '' : `${ms(cpu)} (${ms((cpu * 1000) / n)} µs)`;
  };
  const rows = commandRows(sizes, (timing, n) =>
    services.map((service) => cell(timing, service, n)),
  );
  return table(['command, N', ...services.map((s) => `${s} CPU ms (per process)`)], rows);
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
      sizeLabel(s),
      ms(s.raw.deletedMs),
      ms(s.raw.goneMs),
      `${ms(s.terminate.acceptedToCompletionMs)} (${s.terminate.status})`,
      ratioWithSpread(s, terminateRatio),
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
  const after = results.sizes.map((s) => `after boot of ${sizeLabel(s)} MB`);
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
      `accepted → completion ≤ ${bootRatioGoal(s.n)}× raw create, N=${sizeLabel(s)}`,
      ratio(bootRatio(s)),
      met(bootRatio(s) <= bootRatioGoal(s.n)),
    ],
    [
      `terminate ≤ ${GOALS.terminateOverRawGone}× raw deletes-and-wait, N=${sizeLabel(s)}`,
      ratio(terminateRatio(s)),
      met(terminateRatio(s) <= GOALS.terminateOverRawGone),
    ],
    [
      `\`kpm boot --wait\` ≤ completion + ${ms(cliGoalMs(s.n))} ms, N=${sizeLabel(s)}`,
      `+${ms(cliOverheadMs(s.boot))} ms`,
      met(cliOverheadMs(s.boot) <= cliGoalMs(s.n)),
    ],
  ]);
  rows.push(...memoryGoals(results));
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

function memoryGoals(results: E2eResults): string[][] {
  const rows = Object.entries(results.rssMbIdle).map(([service, mb]) => [
    `${service} idle RSS ≤ ${GOALS.idleRssMb} MB`,
    `${mb} MB`,
    met(mb <= GOALS.idleRssMb),
  ]);
  const perProcess = results.stateHeapPerProcessBytes;
  if (perProcess !== undefined) {
    rows.push([
      `state heap per process booted and killed ≤ ${ms(GOALS.stateHeapPerProcessBytes)} bytes`,
      `${ms(perProcess)} bytes`,
      met(perProcess <= GOALS.stateHeapPerProcessBytes),
    ]);
  }
  return rows;
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
    `## Restart: one readout application mid-session against one pod deleted and created\n\n${restartTable(results.sizes)}`,
    `## Where a command's time goes (CreateTime on Kafka; facts: boot outcomes, terminations)\n\n${stepsTable(results.sizes)}`,
    `## CPU the services spent on each command (the CLI's start to its exit)\n\n${cpuTable(results.sizes)}`,
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
