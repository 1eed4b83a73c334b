/**
 * `npm run bench:kube-http`: kpm's Kubernetes client over HTTP/1.1 (a kept-alive connection per
 * call in flight, what the services use) against the same client over one HTTP/2 connection
 * (`KubeHttp`'s `http2`), and client-go (bench/rawlimit, HTTP/2) — the same objects a boot
 * writes (a pod and its headless Service owned by it, per process), on the local stack's API
 * server, in one run, the three variants alternating round by round.
 *
 *   npm run bench:kube-http -- [--sizes 17,200,400] [--repeats 3] [--sequential 17]
 *
 * Per size, 64 calls in flight (the boot-worker's and rawlimit's). `--sequential N`: N processes
 * one after the other, as drunc's driver boots them: the time of one pod-and-Service create.
 */
import { randomBytes } from 'node:crypto';
import { eventually } from '@kpm/common';
import type { V1Pod } from '@kubernetes/client-node';
import { KubeCoreApi, KubeHttp, loadKubeConnection } from '@kpm/kube';
import { readStackEnv } from '@kpm/stack';
import { buildRawLimit, runRawLimit } from '../e2e/raw-limit';

type Variant = 'http1' | 'http2' | 'client-go';
const VARIANTS: Variant[] = ['http1', 'http2', 'client-go'];
const NODES = ['kpm-node-1', 'kpm-node-2', 'kpm-node-3'];
const LABEL = 'bench.kpm.daq/run';

interface Options {
  sizes: number[];
  repeats: number;
  sequential: number;
}

function parseArgs(argv: string[]): Options {
  const value = (flag: string, fallback: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 && argv[at + 1] ? argv[at + 1] : fallback;
  };
  return {
    sizes: value('--sizes', '17,200,400').split(',').map(Number),
    repeats: Number(value('--repeats', '3')),
    sequential: Number(value('--sequential', '17')),
  };
}

/** What the boot-worker writes for one process, as rawlimit writes it. */
function podOf(namespace: string, i: number): V1Pod {
  const name = `raw-${String(i).padStart(5, '0')}`;
  return {
    metadata: { name, namespace, labels: { [LABEL]: namespace, app: name } },
    spec: {
      nodeName: NODES[i % NODES.length],
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 30,
      containers: [
        {
          name: 'main',
          image: 'kpm.invalid/daq-app:1.0',
          command: ['/bin/bash', '-c', 'exec daq_application'],
        },
      ],
    },
  };
}

async function createOne(core: KubeCoreApi, namespace: string, i: number): Promise<void> {
  const pod = await core.createNamespacedPod({ namespace, body: podOf(namespace, i) });
  const name = pod.metadata?.name ?? '';
  await core.createNamespacedService({
    namespace,
    body: {
      metadata: {
        name,
        namespace,
        labels: { [LABEL]: namespace, app: name },
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Pod', name, uid: pod.metadata?.uid ?? '', controller: true },
        ],
      },
      spec: {
        clusterIP: 'None',
        selector: { app: name },
        ports: [{ name: 'discovery', port: 80, targetPort: 80 }],
      },
    },
  });
}

/** Creates `pods` processes with `workers` calls in flight; the milliseconds it took. */
async function createAll(core: KubeCoreApi, namespace: string, pods: number, workers: number) {
  await core.createNamespace({
    body: { metadata: { name: namespace, labels: { [LABEL]: namespace } } },
  });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(workers, pods) }, async () => {
      while (next < pods) await createOne(core, namespace, next++);
    }),
  );
  return performance.now() - started;
}

/** Deletes the namespace and waits until it is gone, so no round drains under the next. */
async function removeNamespace(core: KubeCoreApi, namespace: string): Promise<void> {
  await core.deleteNamespace({ name: namespace });
  await eventually(
    async () => {
      try {
        await core.readNamespace({ name: namespace });
        return false;
      } catch {
        return true;
      }
    },
    { what: `namespace ${namespace} gone`, timeoutMs: 300_000, everyMs: 250 },
  );
}

async function measure(
  variant: Variant,
  pods: number,
  workers: number,
  clients: { http1: KubeCoreApi; http2: KubeCoreApi; rawlimit: string; kubeconfig: string },
): Promise<number> {
  const namespace = `bench-http-${variant}-${randomBytes(3).toString('hex')}`;
  if (variant === 'client-go') {
    const raw = await runRawLimit(clients.rawlimit, {
      pods,
      namespace,
      kubeconfig: clients.kubeconfig,
      workers,
    });
    return raw.createdMs;
  }
  const core = clients[variant];
  try {
    return await createAll(core, namespace, pods, workers);
  } finally {
    await removeNamespace(core, namespace);
  }
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const kubeconfig = readStackEnv().KUBECONFIG;
  if (!kubeconfig) throw new Error('bench:kube-http: the local stack is not up (npx kpm stack up)');
  const rawlimit = await buildRawLimit((message) => console.error(message));
  const http1 = new KubeHttp(loadKubeConnection(kubeconfig), 30_000);
  const http2 = new KubeHttp(loadKubeConnection(kubeconfig), 30_000, { http2: true });
  const clients = {
    http1: new KubeCoreApi(http1),
    http2: new KubeCoreApi(http2),
    rawlimit,
    kubeconfig,
  };
  // A first call per client: its TLS handshake is not part of any round.
  await clients.http1.listNode();
  await clients.http2.listNode();

  const rows: string[] = [];
  const shapes = [
    ...options.sizes.map((pods) => ({ label: `${pods}, 64 in flight`, pods, workers: 64, per: 1 })),
    ...(options.sequential > 0
      ? [
          {
            label: `${options.sequential}, one at a time (ms per process)`,
            pods: options.sequential,
            workers: 1,
            per: options.sequential,
          },
        ]
      : []),
  ];
  for (const shape of shapes) {
    const times: Record<Variant, number[]> = { http1: [], http2: [], 'client-go': [] };
    for (let round = 0; round < options.repeats; round += 1) {
      // Alternating, and each round in another order: no variant always follows another.
      const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]);
      for (const variant of order) {
        const ms = (await measure(variant, shape.pods, shape.workers, clients)) / shape.per;
        times[variant].push(ms);
        console.error(`${shape.label}: ${variant} ${ms.toFixed(1)} ms`);
      }
    }
    const raw = median(times['client-go']);
    const cell = (variant: Variant) => {
      const values = times[variant];
      const ratios = values.map((v, i) => v / times['client-go'][i]);
      return `${median(values).toFixed(0)} ms, ${(median(values) / raw).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
    };
    rows.push(`| ${shape.label} | ${cell('http1')} | ${cell('http2')} | ${raw.toFixed(0)} ms |`);
  }
  http1.close();
  http2.close();
  console.log(
    '| processes | kpm over HTTP/1.1 ÷ client-go | kpm over HTTP/2 ÷ client-go | client-go |',
  );
  console.log('| --- | --- | --- | --- |');
  for (const row of rows) console.log(row);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
