import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stackEnv } from '../../test/support/stack-env';
import { machine, openBenchRun, releaseSessions } from './bench-env';
import { KpmServices } from './kpm-services';
import { lagBurst } from './lag-burst';
import { bootPlot, lagPlot, restorePlot, terminatePlot, toSvg } from './plots';
import { measureRestore } from './restore';
import { burstSessions, measureSessionBurst } from './session-burst';
import { buildRawLimit } from './raw-limit';
import { markdownReport } from './report';
import { stateHeapPerProcess } from '../memory';
import type { E2eResults, SizeResult } from './results';
import { measureSize, sizeSession, type SizeProfile } from './run-sizes';
import { DuneNodes } from '../drunc-gateway/dune-nodes';

interface Options {
  /** N flat applications, or `N@H`: a DUNE-shaped session of N over H simulated hosts. */
  sizes: { n: number; hosts?: number }[];
  /** Measurements of each N up to 1000 (the median is reported); larger N are measured once. */
  repeats: number;
  lagPods: number;
  /** History sizes (processes) the state service's restore is measured at; empty: not measured. */
  restore: number[];
  /** Sessions × processes of the many-sessions terminate burst; undefined: not measured. */
  burst?: { sessions: number; size: number };
  out: string;
}

const USAGE =
  'usage: npm run bench:e2e -- [--sizes 100,1000,5000|17@1,200@110,400@140] [--repeats 3] [--lag-pods 500] [--restore 1000,10000,50000|none] [--burst 12x1000|none] [--out dir]';

/** Sizes up to this many processes are measured `repeats` times. */
const REPEATED_UP_TO = 1000;

function parseOptions(argv: string[]): Options {
  const options: Options = {
    sizes: [{ n: 100 }, { n: 1000 }, { n: 5000 }],
    repeats: 3,
    lagPods: 500,
    restore: [1000, 10000, 50000],
    burst: { sessions: 12, size: 1000 },
    out: join(__dirname, '..', 'results'),
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--sizes' && value && /^\d+(@\d+)?(,\d+(@\d+)?)*$/.test(value))
      options.sizes = value.split(',').map((size) => {
        const [n, hosts] = size.split('@').map(Number);
        return { n, hosts };
      });
    else if (flag === '--repeats' && value && /^[1-9]\d*$/.test(value))
      options.repeats = Number(value);
    else if (flag === '--lag-pods' && value && /^\d+$/.test(value)) options.lagPods = Number(value);
    else if (flag === '--restore' && value && /^(none|\d+(,\d+)*)$/.test(value))
      options.restore = value === 'none' ? [] : value.split(',').map(Number);
    else if (flag === '--burst' && value && /^(none|\d+x\d+)$/.test(value)) {
      const [sessions, size] = value.split('x').map(Number);
      options.burst = value === 'none' ? undefined : { sessions, size };
    } else if (flag === '--out' && value) options.out = value;
    else throw new Error(`bench:e2e: bad argument ${flag} ${value ?? ''}\n${USAGE}`);
  }
  return options;
}

const log = (message: string): void => console.log(`[bench:e2e] ${message}`);

async function writeResults(results: E2eResults, out: string): Promise<void> {
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'e2e.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(out, 'e2e.md'), markdownReport(results));
  writeFileSync(join(out, 'boot-vs-n.svg'), await toSvg(bootPlot(results)));
  writeFileSync(join(out, 'terminate-vs-n.svg'), await toSvg(terminatePlot(results)));
  if (results.lag)
    writeFileSync(join(out, 'termination-lag-cdf.svg'), await toSvg(lagPlot(results.lag)));
  if (results.restore?.length) {
    writeFileSync(join(out, 'restore-vs-history.svg'), await toSvg(restorePlot(results.restore)));
  }
  log(`wrote ${out}/e2e.md, e2e.json and the SVG plots`);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const { kubeconfig } = stackEnv();
  if (!kubeconfig)
    throw new Error('bench:e2e: KUBECONFIG of the local stack unknown: npx kpm stack up');
  const rawBinary = await buildRawLimit(log);
  const { runId, lab, prefix, clock } = await openBenchRun('bench', log);
  const services = new KpmServices(prefix, lab.domain);
  // DUNE-shaped sizes lie over as many simulated hosts as DUNE's modules have, made for the run.
  const mostHosts = Math.max(0, ...options.sizes.map((size) => size.hosts ?? 0));
  const dune = mostHosts > 0 ? await DuneNodes.create(mostHosts) : undefined;
  const profiles: SizeProfile[] = options.sizes.map(({ n, hosts }) => ({
    n,
    hosts: hosts ? dune!.names.slice(0, hosts) : undefined,
  }));
  try {
    await services.start(log);
    const rssMbIdle = services.rss();
    log(`services up; idle RSS ${JSON.stringify(rssMbIdle)}`);
    const run = { rawBinary, kubeconfig, services, clock, runId, log };
    const sizes: SizeResult[] = [];
    for (const profile of profiles) {
      const repeats = profile.n <= REPEATED_UP_TO ? options.repeats : 1;
      sizes.push(await measureSize(run, profile, repeats));
    }
    log(`termination lag: ${options.lagPods} pods ending at once`);
    const lag = options.lagPods > 0 ? await lagBurst(lab, clock, options.lagPods) : undefined;
    log(`  ${JSON.stringify(lag?.summary)}`);
    log(`state restore at ${options.restore.join(', ')} processes of history`);
    const restore = options.restore.length ? await measureRestore(options.restore, log) : undefined;
    // After the restore: the burst's 12,000 pods keep the API server and kwok busy for minutes
    // after their terminates complete, which would slow a restore measured next.
    const { burst: shape } = options;
    const burst = shape ? await measureSessionBurst(run, shape.sessions, shape.size) : undefined;
    if (burst) log(`  ${JSON.stringify(burst)}`);
    log('state heap per process booted and killed (10,000 processes)');
    const stateHeapPerProcessBytes = Math.round(stateHeapPerProcess(10_000));
    const results: E2eResults = {
      machine: machine(),
      measuredAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      sizes,
      lag,
      restore,
      burst,
      rssMbIdle,
      rssMbPeak: services.peakMb,
      stateHeapPerProcessBytes,
    };
    await writeResults(results, options.out);
    console.log(`\n${markdownReport(results)}`);
  } finally {
    // A run that failed half-way leaves sessions whose pods the watcher must still release.
    const repeats = Array.from({ length: options.repeats }, (_, r) => r);
    await releaseSessions(lab, [
      ...profiles.flatMap((profile) => repeats.map((r) => sizeSession(runId, profile, r))),
      ...burstSessions(runId, options.burst?.sessions ?? 0),
    ]);
    await services.stop();
    await dune?.delete();
    await clock.stop();
    await lab.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
