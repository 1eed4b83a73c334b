import { table } from '../harness';
import type { RealRun } from './real-containers';
import { percentile } from './stats';

const ms = (value: number): string => Math.round(value).toLocaleString('en-US');

/** The median of measured values (the lower middle one of an even count: a measured value). */
function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** "1.46× (1.16–2.14)": the median ratio over the repeats and their spread. */
function ratios(values: readonly number[]): string {
  const spread =
    values.length > 1
      ? ` (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`
      : '';
  return `${median(values).toFixed(2)}×${spread}`;
}

function bySize(runs: readonly RealRun[]): RealRun[][] {
  const sizes = [...new Set(runs.map((r) => r.n))].sort((a, b) => a - b);
  return sizes.map((n) => runs.filter((r) => r.n === n));
}

/** Boot → every container running, kpm against the same pods created straight through the API. */
export function realBootTable(runs: readonly RealRun[]): string {
  return table(
    [
      'N (runs)',
      'raw create → all Running ms',
      'kpm accepted → all Running ms',
      'kpm / raw',
      '`kpm boot` spawned → all Running ms',
      'with the CLI / raw',
    ],
    bySize(runs).map((same) => {
      const raw = same.map((r) => r.raw.createToAllRunningMs);
      return [
        `${same[0].n} (${same.length})`,
        ms(median(raw)),
        ms(median(same.map((r) => r.kpm.acceptedToAllRunningMs))),
        ratios(same.map((r) => r.kpm.acceptedToAllRunningMs / r.raw.createToAllRunningMs)),
        ms(median(same.map((r) => r.kpm.cliToAllRunningMs))),
        ratios(same.map((r) => r.kpm.cliToAllRunningMs / r.raw.createToAllRunningMs)),
      ];
    }),
  );
}

/** Stopping: kpm's terminate against deletes-and-wait, and the lag kpm adds to each exit. */
export function realStopTable(runs: readonly RealRun[]): string {
  return table(
    [
      'N (runs)',
      'raw delete → all exited ms',
      'raw delete → all gone ms',
      'kpm kill.accepted → completion ms',
      'lag: kubelet reports the exit → termination record, p50 / p99 / max ms (pods)',
      'from the container’s finishedAt (whole s), p50 / p99 ms',
    ],
    bySize(runs).map((same) => {
      const lags = same.flatMap((r) => r.kpm.lagsMs);
      const fromFinished = same.flatMap((r) => r.kpm.finishedAtLagsMs);
      const pcts = (values: number[], ps: number[]) =>
        values.length ? ps.map((p) => ms(percentile(values, p))).join(' / ') : '';
      return [
        `${same[0].n} (${same.length})`,
        ms(median(same.map((r) => r.raw.deleteToAllExitedMs))),
        ms(median(same.map((r) => r.raw.deleteToAllGoneMs))),
        ms(median(same.map((r) => r.kpm.terminateMs))),
        `${pcts(lags, [50, 99, 100])} (${lags.length})`,
        pcts(fromFinished, [50, 99]),
      ];
    }),
  );
}

export function realReport(runs: readonly RealRun[], machine: string, at: string): string {
  return [
    `# Real containers on the stack's real node (${machine}; ${at})`,
    `## Boot → every container running\n\n${realBootTable(runs)}`,
    `## Stopping real containers\n\n${realStopTable(runs)}`,
    '',
  ].join('\n\n');
}
