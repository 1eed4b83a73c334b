// vega-lite's types are reachable only through its exports map, which this tsconfig's
// moduleResolution (node) does not read: name the file for the types, the package at run time.
import type { TopLevelSpec } from 'vega-lite/build/index';
import type { Spec as VegaSpec } from 'vega';
import { GOALS, type E2eResults, type LagResult, type RestorePoint } from './results';

interface SeriesPoint {
  n: number;
  seconds: number;
  series: string;
}

/** Below the plot, one entry a line, labels never cut short. */
const LEGEND = { title: null, orient: 'bottom', columns: 1, labelLimit: 0 } as const;
const WIDTH = 520;
const HEIGHT = 300;

/** Lines with points, time against N on log axes, one colour per series, legend below. */
function timeVsN(title: string, points: SeriesPoint[]): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: WIDTH,
    height: HEIGHT,
    background: 'white',
    data: { values: points },
    mark: { type: 'line', point: true },
    encoding: {
      x: {
        field: 'n',
        type: 'quantitative',
        scale: { type: 'log' },
        axis: { title: 'processes N (log scale)', values: points.map((p) => p.n) },
      },
      y: {
        field: 'seconds',
        type: 'quantitative',
        scale: { type: 'log' },
        axis: { title: 'time (s, log scale)' },
      },
      color: {
        field: 'series',
        type: 'nominal',
        legend: LEGEND,
      },
    },
  };
}

export function bootPlot(results: E2eResults): TopLevelSpec {
  const points = results.sizes.flatMap((s) => [
    {
      n: s.n,
      seconds: s.raw.createdMs / 1000,
      series: 'API server limit: client-go creates pods + Services',
    },
    {
      n: s.n,
      seconds: s.boot.acceptedToCompletionMs / 1000,
      series: 'kpm: boot.accepted → completion',
    },
    { n: s.n, seconds: s.boot.cliMs / 1000, series: 'kpm boot --wait (CLI, end to end)' },
  ]);
  return timeVsN('Boot of N processes: kpm against the API server limit', points);
}

export function terminatePlot(results: E2eResults): TopLevelSpec {
  const points = results.sizes.flatMap((s) => [
    {
      n: s.n,
      seconds: s.raw.goneMs / 1000,
      series: 'API server limit: client-go deletes, all pods gone',
    },
    {
      n: s.n,
      seconds: s.terminate.acceptedToCompletionMs / 1000,
      series: 'kpm: kill.accepted → completion',
    },
    { n: s.n, seconds: s.terminate.cliMs / 1000, series: 'kpm terminate --wait (CLI, end to end)' },
  ]);
  return timeVsN('Terminate of N processes: kpm against deletes-and-wait', points);
}

/** The empirical CDF of the lag as a step line, with the goal as a vertical rule. */
export function lagPlot(lag: LagResult): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `Termination lag, ${lag.pods} pods ending at once`,
      subtitle: 'from an independent watch showing the pod terminal to its record on Kafka',
    },
    width: WIDTH,
    height: HEIGHT,
    background: 'white',
    layer: [
      {
        data: { values: lag.cdf.map((p) => ({ ...p, series: 'kpm watcher (empirical CDF)' })) },
        mark: { type: 'line', interpolate: 'step-after' },
        encoding: {
          x: { field: 'value', type: 'quantitative', axis: { title: 'lag (ms)' } },
          y: {
            field: 'fraction',
            type: 'quantitative',
            scale: { domain: [0, 1] },
            axis: { title: 'fraction of pods with lag ≤ x', format: '%' },
          },
          color: {
            field: 'series',
            type: 'nominal',
            legend: LEGEND,
          },
        },
      },
      {
        data: { values: [{ goal: GOALS.lagP99Ms, series: `goal: p99 ≤ ${GOALS.lagP99Ms} ms` }] },
        mark: { type: 'rule', strokeDash: [4, 4] },
        encoding: {
          x: { field: 'goal', type: 'quantitative' },
          color: { field: 'series', type: 'nominal' },
        },
      },
    ],
  };
}

/** Restore time against the records in the history, with the goal's rate as a line. */
export function restorePlot(points: readonly RestorePoint[]): TopLevelSpec {
  const values = points.flatMap((p) => [
    { records: p.records, seconds: p.seconds, series: 'kpm state: restore from its snapshot' },
    {
      records: p.records,
      seconds: p.wholeSeconds,
      series: 'kpm state: whole history (no usable snapshot)',
    },
    {
      records: p.records,
      seconds: p.records / GOALS.restoreRecordsPerSecond,
      series: `goal: ${GOALS.restoreRecordsPerSecond.toLocaleString('en-US')} records/s`,
    },
  ]);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: 'State service restore against the size of its history',
    width: WIDTH,
    height: HEIGHT,
    background: 'white',
    data: { values },
    mark: { type: 'line', point: true },
    encoding: {
      x: {
        field: 'records',
        type: 'quantitative',
        axis: { title: 'records in the history (facts)' },
      },
      y: { field: 'seconds', type: 'quantitative', axis: { title: 'restore time (s)' } },
      // One legend for both channels: the goal is a dashed line of its own colour.
      color: { field: 'series', type: 'nominal', legend: LEGEND },
      strokeDash: { field: 'series', type: 'nominal', legend: LEGEND },
    },
  };
}

const VEGA_LITE: string = 'vega-lite';

/** Renders a Vega-Lite spec to SVG text, headless (no browser, no canvas). */
export async function toSvg(spec: TopLevelSpec): Promise<string> {
  const vega = await import('vega');
  const vegaLite = (await import(VEGA_LITE)) as {
    compile: (spec: TopLevelSpec) => { spec: VegaSpec };
  };
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  return view.toSVG();
}
