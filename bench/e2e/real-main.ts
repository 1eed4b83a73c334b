/**
 * `npm run bench:real`: real containers on the local stack's real node — boot → every container
 * running of N stand-in processes through kpm against the same pods created straight through
 * the API, and the lag kpm adds to a real container's exit. Sessions and namespaces of its own,
 * deleted at the end (the real node is shared).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { realNode, realNodeBootEnv } from '../../test/support/real-node';
import { machine, openBenchRun, releaseSessions } from './bench-env';
import { KpmServices } from './kpm-services';
import { measureReal, realSession, type RealBench, type RealRun } from './real-containers';
import { NodePods } from './real-pods';
import { realReport } from './real-report';

const USAGE = 'usage: npm run bench:real -- [--sizes 1,10,50] [--repeats 3] [--out dir]';

function parseOptions(argv: string[]) {
  const options = { sizes: [1, 10, 50], repeats: 3, out: join(__dirname, '..', 'results') };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--sizes' && value && /^\d+(,\d+)*$/.test(value))
      options.sizes = value.split(',').map(Number);
    else if (flag === '--repeats' && value && /^[1-9]\d*$/.test(value))
      options.repeats = Number(value);
    else if (flag === '--out' && value) options.out = value;
    else throw new Error(`bench:real: bad argument ${flag} ${value ?? ''}\n${USAGE}`);
  }
  return options;
}

const log = (message: string): void => console.log(`[bench:real] ${message}`);

async function measureAll(bench: RealBench, sizes: number[], repeats: number): Promise<RealRun[]> {
  const runs: RealRun[] = [];
  for (const n of sizes) {
    let specs: readonly V1Pod[] | undefined;
    for (let repeat = 0; repeat < repeats; repeat++) {
      const measured = await measureReal(bench, n, repeat, specs);
      specs = measured.specs;
      runs.push(measured.run);
    }
  }
  return runs;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const target = realNode();
  const { runId, lab, prefix, clock } = await openBenchRun('bench-real', log);
  const pods = await new NodePods(lab.kubeconfig, target.node).start();
  const services = new KpmServices(prefix, lab.domain, realNodeBootEnv(target));
  try {
    await services.start(log);
    const bench = { core: lab.core, pods, clock, prefix, node: target.node, runId, log };
    const runs = await measureAll(bench, options.sizes, options.repeats);
    const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const report = realReport(runs, machine(), at);
    mkdirSync(options.out, { recursive: true });
    writeFileSync(join(options.out, 'real.json'), `${JSON.stringify(runs, null, 2)}\n`);
    writeFileSync(join(options.out, 'real.md'), report);
    console.log(`\n${report}`);
  } finally {
    const repeats = Array.from({ length: options.repeats }, (_, r) => r);
    await releaseSessions(
      lab,
      options.sizes.flatMap((n) => repeats.map((r) => realSession(runId, n, r))),
    );
    await services.stop();
    pods.stop();
    await clock.stop();
    await lab.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
