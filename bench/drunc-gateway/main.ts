/**
 * `node --require tsx/cjs bench/drunc-gateway/main.ts [sizes] [eras]`: each drunc RPC's latency
 * through the drunc gateway for sessions of 1 and 200 processes (default), in each wire era
 * (`current,enveloped`: druncschema 1.1.0, and the enveloped era of drunc v0.10 and drunc's web
 * UI), on the local stack (kwok nodes): the three services in-process, the gateway as its own
 * process, drunc's calls from Python (latency.py). Prints a markdown table per era: median and
 * p99 (nearest rank) in ms, and the number of calls.
 */
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { KpmTrio } from '../../test/support/kpm-trio';
import { projectPython, runPython } from '../../test/support/python';
import { freePort, ServiceProcess } from '../../test/support/service-process';
import { stackEnv } from '../../test/support/stack-env';

type Latencies = Record<
  string,
  Record<string, { calls: number; median_ms: number; p99_ms: number; max_ms: number }>
>;

async function kwokNodes(): Promise<string[]> {
  const config = new KubeConfig();
  config.loadFromFile(stackEnv().kubeconfig!);
  const list = await config.makeApiClient(CoreV1Api).listNode();
  return list.items
    .filter((n) => n.status?.nodeInfo?.kubeletVersion?.startsWith('kwok'))
    .map((n) => n.metadata!.name!);
}

async function main(): Promise<void> {
  const sizes = process.argv[2] ?? '1,200';
  const eras = (process.argv[3] ?? 'current,enveloped').split(',');
  const python = await projectPython();
  const trio = await KpmTrio.start('gwbench');
  const port = await freePort();
  const { brokers, topicReplication } = stackEnv();
  const gateway = new ServiceProcess('drunc-gateway', {
    KPM_KAFKA_BROKERS: brokers.join(','),
    ...topicReplication,
    KPM_TOPIC_PREFIX: trio.prefix,
    KPM_STATE_URL: await trio.stateUrl(),
    KPM_DRUNC_GATEWAY_PORT: String(port),
  });
  try {
    await gateway.start();
    const base = trio.session('bench');
    for (const era of eras) {
      for (const n of sizes.split(',')) trio.session(`bench-${era[0]}${n}`);
    }
    const nodes = (await kwokNodes()).join(',');
    for (const era of eras) {
      const run = await runPython(
        python,
        join('bench', 'drunc-gateway', 'latency.py'),
        ['--era', era, '--sizes', sizes],
        30 * 60_000,
        {
          KPM_DRUNC_GATEWAY: `grpc://127.0.0.1:${port}`,
          KPM_TEST_SESSION: base,
          KPM_TEST_USER: 'daq-bench',
          KPM_TEST_NODES: nodes,
        },
      );
      if (run.code !== 0) throw new Error(`latency.py exited ${run.code}:\n${run.stderr}`);
      printTable(era, JSON.parse(run.stdout) as Latencies);
    }
  } finally {
    await gateway.kill('SIGTERM');
    await trio.close();
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
