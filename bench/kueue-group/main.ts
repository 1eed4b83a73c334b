/**
 * `npm run bench:kueue`: what making an all-or-nothing boot one Kueue pod group costs (docs/design.md
 * §4 "Kueue pod groups"), on the local stack with Kueue (`npx kpm stack up --kueue`): a
 * DUNE-shaped session (bench/e2e/dune-session.ts, every process asking 10m cpu and 16Mi) booted
 * all-or-nothing by three boot-workers in one run, round by round in turn —
 *
 * - `bound`: kpm names each pod's node (`assignNodes: true`, the default);
 * - `scheduled`: the scheduler places each pod (`assignNodes: false`), stage by stage as drunc;
 * - `kueue-group`: the same, as one Kueue pod group (`podManagement.kueue`): every pod made at
 *   once, admitted by a ClusterQueue, released stage by stage behind kpm's gate.
 *
 * Per boot: from the command sent to its last `process.booted`, and to every pod Running (a watch
 * of the session's pods). The session is terminated (namespace gone) before the next boot.
 *
 *   npm run bench:kueue -- [--sizes 17,200] [--repeats 3] [--out bench/results/kueue-group.md]
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Watch, type V1Pod } from '@kubernetes/client-node';
import { CommandType, ProcessEventType } from '@kpm/contracts';
import { readStackEnv } from '@kpm/stack';
import { BootWorkerHarness } from '../../test/support/boot-worker-harness';
import { KueueQuota } from '../../test/support/kueue-quota';
import { duneProcesses } from '../e2e/dune-session';
import { machine } from '../e2e/bench-env';
import { summarize } from '../e2e/stats';

type Variant = 'bound' | 'scheduled' | 'kueue-group';
const VARIANTS: Variant[] = ['bound', 'scheduled', 'kueue-group'];
const HOSTS = ['kpm-node-1', 'kpm-node-2', 'kpm-node-3'];

interface Options {
  sizes: number[];
  repeats: number;
  out: string;
}

interface Measurement {
  variant: Variant;
  size: number;
  bootedMs: number;
  runningMs: number;
}

function parseArgs(argv: string[]): Options {
  const value = (flag: string, fallback: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 && argv[at + 1] ? argv[at + 1] : fallback;
  };
  return {
    sizes: value('--sizes', '17,200').split(',').map(Number),
    repeats: Number(value('--repeats', '3')),
    out: value('--out', 'bench/results/kueue-group.md'),
  };
}

const ENV = {
  KPM_ALLOWED_IMAGES: '*',
  KPM_RUN_AS_USERS: 'alice:1000:1000',
};

/** Resolves once `count` pods of the session are Running; watched from before the boot. */
async function allRunning(h: BootWorkerHarness, session: string, count: number) {
  const running = new Set<string>();
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  const controller = await new Watch(h.kubeconfig).watch(
    `/api/v1/namespaces/${session}/pods`,
    {},
    (_type: string, pod: V1Pod) => {
      if (pod.status?.phase === 'Running') running.add(pod.metadata!.name!);
      if (running.size >= count) resolve();
    },
    () => undefined,
  );
  return { done, stop: () => controller.abort() };
}

async function bootOnce(h: BootWorkerHarness, variant: Variant, size: number, round: string) {
  const session = h.session(`${size}-${round}`);
  const processes = duneProcesses(size, HOSTS).map((p) => ({
    ...p,
    resources: { requests: { cpu: '10m', memory: '16Mi' } },
  }));
  const watch = await allRunning(h, session, size);
  const id = `boot-${session}`;
  const started = Date.now();
  await h.send(id, CommandType.boot, { session, user: 'alice', allOrNothing: true, processes });
  let runningMs = 0;
  const running = watch.done.then(() => (runningMs = Date.now() - started));
  await h.factCount(ProcessEventType.processBooted, id, size, 300_000);
  const bootedMs = Date.now() - started;
  await running;
  watch.stop();
  const failed = h.facts(ProcessEventType.processBootFailed, id);
  if (failed.length > 0) throw new Error(`${variant}: ${failed.length} processes failed to boot`);
  await h.send(`terminate-${session}`, CommandType.terminate, { session, user: 'alice' });
  await h.until(
    () => h.namespaceExists(session),
    (exists) => !exists,
    300_000,
  );
  return { variant, size, bootedMs, runningMs };
}

function table(results: Measurement[], options: Options): string {
  const lines = [
    '# Kueue pod groups: what they cost an all-or-nothing boot',
    '',
    `\`npm run bench:kueue -- --sizes ${options.sizes.join(',')} --repeats ${options.repeats}\`, ` +
      `${new Date().toISOString().slice(0, 10)}, ${machine()}; Kueue v0.17.0 and kube-scheduler ` +
      'on the local stack, kwok nodes. Milliseconds from the boot sent: median (min–max) of the ' +
      'repeats; the ratio is the median against `scheduled` in the same run.',
    '',
    '| processes | variant | last `process.booted` | every pod Running | ratio (Running) |',
    '| --------- | ------- | --------------------- | ----------------- | --------------- |',
  ];
  for (const size of options.sizes) {
    const of = (variant: Variant) =>
      results.filter((r) => r.size === size && r.variant === variant);
    const base = summarize(of('scheduled').map((r) => r.runningMs)).p50;
    for (const variant of VARIANTS) {
      const booted = summarize(of(variant).map((r) => r.bootedMs));
      const running = summarize(of(variant).map((r) => r.runningMs));
      const span = (s: typeof booted) => `${s.p50} (${s.min}–${s.max})`;
      lines.push(
        `| ${size} | \`${variant}\` | ${span(booted)} | ${span(running)} | ${(running.p50 / base).toFixed(2)}× |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  Object.assign(process.env, readStackEnv());
  if (!process.env.KPM_KUEUE_VERSION)
    throw new Error('bench:kueue needs Kueue in the stack: run `npx kpm stack up --kueue` first');
  const suffix = randomBytes(3).toString('hex');
  const clusterQueue = `bench-${suffix}`;
  const harnesses = new Map<Variant, BootWorkerHarness>();
  harnesses.set('bound', await BootWorkerHarness.start('kqb', ENV));
  harnesses.set(
    'scheduled',
    await BootWorkerHarness.start('kqs', { ...ENV, KPM_ASSIGN_NODES: 'false' }),
  );
  harnesses.set(
    'kueue-group',
    await BootWorkerHarness.start('kqg', {
      ...ENV,
      KPM_ASSIGN_NODES: 'false',
      KPM_KUEUE_CLUSTER_QUEUE: clusterQueue,
    }),
  );
  const quota = await KueueQuota.create(harnesses.get('bound')!.kubeconfig, {
    name: clusterQueue,
    cpu: '100',
    memory: '100Gi',
  });
  const results: Measurement[] = [];
  try {
    for (const size of options.sizes)
      for (let repeat = 1; repeat <= options.repeats; repeat++)
        for (const variant of VARIANTS) {
          const result = await bootOnce(harnesses.get(variant)!, variant, size, `r${repeat}`);
          process.stderr.write(`${JSON.stringify(result)}\n`);
          results.push(result);
        }
  } finally {
    for (const h of harnesses.values()) await h.close();
    await quota.delete();
  }
  const text = table(results, options);
  writeFileSync(options.out, text);
  process.stdout.write(text);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
