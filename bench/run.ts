import { contractsBench } from './contracts.bench';
import { stateBench } from './state.bench';
import { watcherBench } from './watcher.bench';
import { formatNumber, measure, table, type BenchResult, type BenchSuite } from './harness';

/** `npm run bench`: every suite, printed as markdown tables (paste into the README). */
const suites: BenchSuite[] = [contractsBench, stateBench, watcherBench];

async function main(): Promise<void> {
  const only = process.argv[2];
  for (const suite of suites.filter(
    (s) => !only || s.title.toLowerCase().includes(only.toLowerCase()),
  )) {
    const results: BenchResult[] = [];
    for (const benchCase of await suite.cases()) results.push(await measure(benchCase));
    console.log(`\n### ${suite.title}\n`);
    console.log(
      table(
        ['case', 'median ms', 'per second'],
        results.map((r) => [
          r.name,
          r.medianMs.toFixed(2),
          `${formatNumber(r.perSecond)} ${r.unit}/s`,
        ]),
      ),
    );
    if (suite.ratios?.length) {
      const byName = new Map(results.map((r) => [r.name, r]));
      console.log('');
      console.log(
        table(
          ['ratio', 'value'],
          suite.ratios.map(([label, a, b]) => [
            label,
            `${(byName.get(b)!.perSecond / byName.get(a)!.perSecond).toFixed(1)}×`,
          ]),
        ),
      );
    }
    await suite.teardown?.();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
