/**
 * `node --require tsx/cjs bench/drunc-gateway/main.ts [sizes] [eras]`: each drunc RPC's latency
 * through the drunc gateway for sessions of 1 and 200 processes (default), in each wire era
 * (`current,enveloped`: druncschema 1.1.0, and the enveloped era of drunc v0.10 and drunc's web
 * UI), on the local stack (kwok nodes): the three services in-process, the gateway as its own
 * process, drunc's calls from Python (latency.py). Prints a markdown table per era: median and
 * p99 (nearest rank) in ms, and the number of calls.
 */
import { join } from 'node:path';
import { GatewayHarness, kwokNodeNames } from '../../test/support/drunc-gateway-harness';
import { projectPython, runPython } from '../../test/support/python';

type Latencies = Record<
  string,
  Record<string, { calls: number; median_ms: number; p99_ms: number; max_ms: number }>
>;

async function main(): Promise<void> {
  const sizes = process.argv[2] ?? '1,200';
  const eras = (process.argv[3] ?? 'current,enveloped').split(',');
  const python = await projectPython();
  const harness = await GatewayHarness.start('gwbench', { instance: 'drunc-gateway-bench' });
  const { trio } = harness;
  try {
    const base = trio.session('bench');
    for (const era of eras) {
      for (const n of sizes.split(',')) trio.session(`bench-${era[0]}${n}`);
    }
    const nodes = (await kwokNodeNames()).join(',');
    for (const era of eras) {
      const run = await runPython(
        python,
        join('bench', 'drunc-gateway', 'latency.py'),
        ['--era', era, '--sizes', sizes],
        30 * 60_000,
        {
          KPM_DRUNC_GATEWAY: harness.address,
          KPM_TEST_SESSION: base,
          KPM_TEST_USER: 'daq-bench',
          KPM_TEST_NODES: nodes,
        },
      );
      if (run.code !== 0) throw new Error(`latency.py exited ${run.code}:\n${run.stderr}`);
      printTable(era, JSON.parse(run.stdout) as Latencies);
    }
  } finally {
    await harness.close();
  }
}

function printTable(era: string, latencies: Latencies): void {
  const rpcs = ['describe', 'boot', 'ps', 'logs', 'kill', 'restart', 'flush', 'terminate'];
  const columns = Object.keys(latencies);
  console.log(`\n${era} era\n`);
  console.log(
    `| rpc | ${columns.map((n) => `${n} process(es): median / p99 ms (calls)`).join(' | ')} |`,
  );
  console.log(`| --- | ${columns.map(() => '---').join(' | ')} |`);
  for (const rpc of rpcs) {
    const cells = columns.map((n) => {
      const l = latencies[n][rpc];
      return l ? `${l.median_ms} / ${l.p99_ms} (${l.calls})` : '—';
    });
    console.log(`| ${rpc} | ${cells.join(' | ')} |`);
  }
}

void main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
