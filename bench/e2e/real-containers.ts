import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { ProcessEventType } from '@kpm/contracts';
import type { FactClock } from './fact-clock';
import { runCli } from './kpm-cli';
import type { NodePods, PodSeen } from './real-pods';

/** One N on the real node: kpm's boot and terminate, and the same pods straight through the API. */
export interface RealRun {
  n: number;
  repeat: number;
  kpm: {
    /** `kpm boot` spawned → every container running (the watch). */
    cliToAllRunningMs: number;
    /** `boot.accepted` (CreateTime) → every container running. */
    acceptedToAllRunningMs: number;
    /** `kill.accepted` → the terminate's completion (CreateTime). */
    terminateMs: number;
    /** Per pod: the kubelet's report of the container's exit (the watch) → kpm's termination record. */
    lagsMs: number[];
    /** Per pod: the container's finishedAt (whole seconds, rounded down) → the termination record. */
    finishedAtLagsMs: number[];
  };
  raw: {
    /** First create sent → every container running. */
    createToAllRunningMs: number;
    /** First delete sent → the kubelet reported every container exited. */
    deleteToAllExitedMs: number;
    /** First delete sent → every pod gone. */
    deleteToAllGoneMs: number;
  };
}

export interface RealBench {
  core: CoreV1Api;
  pods: NodePods;
  clock: FactClock;
  prefix: string;
  node: string;
  runId: string;
  log: (message: string) => void;
}

const TIMEOUT_MS = 180_000;

/** `n` stand-in applications placed on the real node (its taint is tolerated by allowedHosts). */
export function realSessionFile(session: string, n: number, node: string): string {
  const processes = Array.from({ length: n }, (_, i) => {
    const name = `ru-${String(i).padStart(3, '0')}`;
    return {
      name,
      treeId: `1.1.${i}`,
      executableAndArguments: [{ exec: 'daq_application', args: ['--name', name] }],
      restriction: { allowedHosts: [node] },
    };
  });
  const file = join(mkdtempSync(join(tmpdir(), 'kpm-bench-real-')), `${session}.yaml`);
  writeFileSync(file, JSON.stringify({ session, user: 'bench', processes }));
  return file;
}

const latest = (pods: PodSeen[], at: (p: PodSeen) => number | undefined) =>
  Math.max(...pods.map((p) => at(p)!));

async function kpm(bench: RealBench, args: string[]): Promise<number> {
  const cli = await runCli(args, { KPM_TOPIC_PREFIX: bench.prefix });
  if (cli.exitCode !== 0) {
    throw new Error(`kpm ${args[0]} exited ${cli.exitCode}: ${cli.stderr.trim().slice(-500)}`);
  }
  return cli.startedAtMs;
}

async function kpmBoot(bench: RealBench, session: string, n: number) {
  const file = realSessionFile(session, n, bench.node);
  const started = await kpm(bench, ['boot', '-f', file, '--wait', '--timeout', '120']);
  const running = await bench.pods.until(
    session,
    n,
    (p) => p.runningAtMs !== undefined,
    TIMEOUT_MS,
  );
  const allRunning = latest(running, (p) => p.runningAtMs);
  const accepted = bench.clock.latestAccepted(session, ProcessEventType.bootAccepted)!;
  return {
    cliToAllRunningMs: allRunning - started,
    acceptedToAllRunningMs: allRunning - accepted.atMs,
  };
}

async function kpmTerminate(bench: RealBench, session: string, n: number) {
  await kpm(bench, ['terminate', '--session', session, '--wait', '--timeout', '120']);
  const done = await bench.clock.command(session, ProcessEventType.killAccepted, TIMEOUT_MS);
  const exited = await bench.pods.until(session, n, (p) => p.exitedAtMs !== undefined, TIMEOUT_MS);
  const recorded = await bench.clock.until(
    `the terminations of ${session}`,
    () => (exited.every((p) => bench.clock.terminations.has(p.uid)) ? exited : undefined),
    TIMEOUT_MS,
  );
  const at = (p: PodSeen) => bench.clock.terminations.get(p.uid)!;
  return {
    terminateMs: done.acceptedToCompletionMs,
    lagsMs: recorded.map((p) => at(p) - p.exitedAtMs!),
    finishedAtLagsMs: recorded.filter((p) => p.finishedAtMs).map((p) => at(p) - p.finishedAtMs!),
  };
}

/** kpm's pods as a user would write them: the same spec, no kpm labels, finalizer or owner. */
export function rawCopies(pods: readonly V1Pod[]): V1Pod[] {
  return pods.map((pod) => ({
    metadata: { name: pod.metadata!.name, labels: { 'bench.kpm.daq/raw': 'true' } },
    spec: pod.spec,
  }));
}

async function rawRun(bench: RealBench, namespace: string, specs: readonly V1Pod[]) {
  const { core, pods } = bench;
  const n = specs.length;
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  try {
    const created = Date.now();
    await Promise.all(specs.map((body) => core.createNamespacedPod({ namespace, body })));
    const running = await pods.until(namespace, n, (p) => p.runningAtMs !== undefined, TIMEOUT_MS);
    const deleted = Date.now();
    await Promise.all(
      specs.map((p) => core.deleteNamespacedPod({ namespace, name: p.metadata!.name! })),
    );
    const gone = await pods.until(namespace, n, (p) => p.goneAtMs !== undefined, TIMEOUT_MS);
    return {
      createToAllRunningMs: latest(running, (p) => p.runningAtMs) - created,
      // A pod whose exit the watch missed (its deletion came first) counts as exited when gone.
      deleteToAllExitedMs: latest(gone, (p) => p.exitedAtMs ?? p.goneAtMs) - deleted,
      deleteToAllGoneMs: latest(gone, (p) => p.goneAtMs) - deleted,
    };
  } finally {
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  }
}

/** kpm's run of N (the pods it made are returned for the raw side), then the raw run. */
export async function measureReal(
  bench: RealBench,
  n: number,
  repeat: number,
  specs?: readonly V1Pod[],
): Promise<{ run: RealRun; specs: readonly V1Pod[] }> {
  const session = realSession(bench.runId, n, repeat);
  const rawNamespace = `${bench.runId}-raw-n${n}-r${repeat}`;
  // The side that goes first alternates between repeats (the raw side needs kpm's pods once).
  const rawFirst = specs !== undefined && repeat % 2 === 1;
  const raw1 = rawFirst ? await rawRun(bench, rawNamespace, specs) : undefined;
  bench.log(`N=${n} r${repeat}: kpm boot`);
  const boot = await kpmBoot(bench, session, n);
  const made =
    specs ?? rawCopies((await bench.core.listNamespacedPod({ namespace: session })).items);
  bench.log(`N=${n} r${repeat}: kpm terminate`);
  const terminate = await kpmTerminate(bench, session, n);
  const raw = raw1 ?? (await rawRun(bench, rawNamespace, made));
  const run: RealRun = { n, repeat, kpm: { ...boot, ...terminate }, raw };
  bench.log(
    `  ${JSON.stringify({ ...run, kpm: { ...run.kpm, lagsMs: undefined, finishedAtLagsMs: undefined } })}`,
  );
  return { run, specs: made };
}

export function realSession(runId: string, n: number, repeat: number): string {
  return `${runId}-real-n${n}-r${repeat}`;
}
