/**
 * `node --require tsx/cjs bench/drunc-gateway/main.ts [sizes]`: each drunc RPC's latency through
 * the drunc gateway for sessions of 1 and 100 processes (default), on the local stack (kwok
 * nodes): the three services in-process, the gateway as its own process, drunc's calls from
 * Python (latency.py). Prints a markdown table.
 */
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { KpmTrio } from '../../test/support/kpm-trio';
import { projectPython, runPython } from '../../test/support/python';
import { freePort, ServiceProcess } from '../../test/support/service-process';
import { stackEnv } from '../../test/support/stack-env';

type Latencies = Record<
  string,
  Record<string, { calls: number; median_ms: number; max_ms: number }>
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
  const sizes = process.argv[2] ?? '1,100';
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
    for (const n of sizes.split(',')) trio.session(`bench-${n}`);
    const run = await runPython(
      python,
      join('bench', 'drunc-gateway', 'latency.py'),
      ['--sizes', sizes],
      30 * 60_000,
      {
        KPM_DRUNC_GATEWAY: `grpc://127.0.0.1:${port}`,
        KPM_TEST_SESSION: base,
        KPM_TEST_USER: 'daq-bench',
        KPM_TEST_NODES: (await kwokNodes()).join(','),
      },
    );
    if (run.code !== 0) throw new Error(`latency.py exited ${run.code}:\n${run.stderr}`);
    const latencies = JSON.parse(run.stdout) as Latencies;
    const rpcs = ['describe', 'boot', 'ps', 'logs', 'kill', 'restart', 'flush', 'terminate'];
    const columns = Object.keys(latencies);
    console.log(`| rpc | ${columns.map((n) => `${n} process(es): median (max) ms`).join(' | ')} |`);
    console.log(`| --- | ${columns.map(() => '---').join(' | ')} |`);
    for (const rpc of rpcs) {
      const cells = columns.map((n) => {
        const l = latencies[n][rpc];
        return l ? `${l.median_ms} (${l.max_ms}) ×${l.calls}` : '—';
      });
      console.log(`| ${rpc} | ${cells.join(' | ')} |`);
    }
  } finally {
    await gateway.kill('SIGTERM');
    await trio.close();
  }
}

void main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
