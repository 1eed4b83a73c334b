/**
 * `node --require tsx/cjs bench/drunc-gateway/main.ts [profiles] [eras]`: each drunc RPC's
 * latency through the drunc gateway, in each wire era (`current,enveloped`: druncschema 1.1.0,
 * and the enveloped era of drunc v0.10 and drunc's web UI), on the local stack: kpm as deployed,
 * the three services and the gateway each its own compiled process (deployed-kpm.ts), drunc's
 * calls from Python (latency.py), one boot call per process after the other, as drunc's driver
 * sends them.
 *
 * A profile is `N@H`, N processes over H simulated hosts (kwok nodes made for the run and
 * removed after it), or `N` over the stack's own kwok nodes. The default is DUNE's sizes:
 * a test session of 17 processes on one host, a far-detector module of 200 on 110 hosts, and
 * the largest session, 400 on 140.
 *
 * Beside them, in the same run: one pod and its Service created by client-go on the same API
 * server (bench/rawlimit, 20 one after the other on one connection), the floor a boot call
 * stands on. Prints a markdown table per era (median and p99, nearest rank, in ms, and the
 * number of calls), one of each session's totals against the goals, and one of where a boot
 * call's time goes, step by step (boot-call-steps.ts).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { kwokNodeNames } from '../../test/support/drunc-gateway-harness';
import { projectPython, runPython } from '../../test/support/python';
import { stackEnv } from '../../test/support/stack-env';
import { buildRawLimit, runRawLimit } from '../e2e/raw-limit';
import { BOOT_CALL_STEPS, bootCallSteps, type StepSummary } from './boot-call-steps';
import { DeployedKpm } from './deployed-kpm';
import { DuneNodes } from './dune-nodes';

const DUNE_PROFILES = '17@1,200@110,400@140';
/** Sequential creates timed for the client-go floor of one boot call. */
const SINGLE_CREATES = 20;

interface Profile {
  label: string;
  processes: number;
  hosts?: number;
}

interface RpcLatency {
  calls: number;
  median_ms: number;
  p99_ms: number;
  max_ms: number;
}

interface SessionTotals {
  boot_calls_ms: number;
  all_running_ms: number;
  /** Each boot call's send and answer, ms since the epoch. */
  boot_windows_ms: [number, number][];
}

type Latencies = Record<string, Record<string, RpcLatency> & { session: SessionTotals }>;

const log = (message: string): void => console.error(`[bench:drunc-gateway] ${message}`);

function parseProfiles(raw: string): Profile[] {
  return raw.split(',').map((item) => {
    const match = /^(\d+)(?:@(\d+))?$/.exec(item.trim());
    if (!match) throw new Error(`bench:drunc-gateway: a profile is N or N@HOSTS, not ${item}`);
    const [, processes, hosts] = match;
    return {
      label: item.trim(),
      processes: Number(processes),
      hosts: hosts ? Number(hosts) : undefined,
    };
  });
}

async function main(): Promise<void> {
  const profiles = parseProfiles(process.argv[2] ?? DUNE_PROFILES);
  const eras = (process.argv[3] ?? 'current,enveloped').split(',');
  const singleCreateMs = await clientGoSingleCreate();
  log(`client-go: one pod and its Service in ${singleCreateMs.toFixed(1)} ms`);
  const python = await projectPython();
  // Every simulated host first: the boot-worker trusts one listing of the nodes for drunc's
  // host_cache_expiry, and a node made after it is not yet part of its cluster.
  const most = Math.max(0, ...profiles.map((p) => p.hosts ?? 0));
  const dune = most > 0 ? await DuneNodes.create(most) : undefined;
  const kpm = await DeployedKpm.start(log);
  const { clock } = kpm;
  const results: Record<string, Latencies> = {};
  const steps: Record<string, Record<string, StepSummary[]>> = {};
  try {
    const base = kpm.session('bench');
    for (const era of eras) {
      for (const p of profiles) kpm.session(`bench-${era[0]}${p.processes}`);
    }
    for (const profile of profiles) {
      const nodes = profile.hosts ? dune!.names.slice(0, profile.hosts) : await kwokNodeNames();
      for (const era of eras) {
        log(`${era} era: ${profile.processes} processes over ${nodes.length} hosts`);
        const run = await runPython(
          python,
          join('bench', 'drunc-gateway', 'latency.py'),
          ['--era', era, '--sizes', String(profile.processes)],
          30 * 60_000,
          {
            KPM_DRUNC_GATEWAY: kpm.address,
            KPM_TEST_SESSION: base,
            KPM_TEST_USER: 'daq-bench',
            KPM_TEST_NODES: nodes.join(','),
          },
        );
        if (run.code !== 0) throw new Error(`latency.py exited ${run.code}:\n${run.stderr}`);
        const measured = JSON.parse(run.stdout) as Latencies;
        const latencies = measured[String(profile.processes)];
        results[era] = { ...results[era], [profile.label]: latencies };
        const session = `${base}-${era[0]}${profile.processes}`;
        const boots = await clock.until(
          `the ${profile.processes} boots of ${session} and their completions on Kafka`,
          () => {
            const found = clock.bootRecords(session);
            return found.length >= profile.processes ? found : undefined;
          },
          60_000,
        );
        const calls = latencies.session.boot_windows_ms.map(([sentMs, answeredMs]) => ({
          sentMs,
          answeredMs,
        }));
        steps[era] = { ...steps[era], [profile.label]: bootCallSteps(calls, boots) };
      }
    }
  } finally {
    await kpm.close();
    await dune?.delete();
  }
  for (const era of eras) printTable(era, results[era]);
  printSessions(eras, profiles, results, singleCreateMs);
  printSteps(eras, profiles, steps);
}

/** Where a boot call's time goes: each step's median / p90 per era and profile. */
function printSteps(
  eras: string[],
  profiles: Profile[],
  steps: Record<string, Record<string, StepSummary[]>>,
): void {
  console.log(
    "\nwhere a boot call's time goes (drunc's send and answer against the command's records' CreateTime on Kafka), median / p90 ms\n",
  );
  const columns = eras.flatMap((era) => profiles.map((p) => ({ era, label: p.label })));
  console.log(
    `| step | ${columns.map((c) => `${c.era}, ${c.label}`).join(' | ')} | what it holds |`,
  );
  console.log(`| --- | ${columns.map(() => '---').join(' | ')} | --- |`);
  BOOT_CALL_STEPS.forEach(([step, holds], s) => {
    const cells = columns.map(({ era, label }) => {
      const summary = steps[era][label][s];
      return `${summary.p50Ms.toFixed(0)} / ${summary.p90Ms.toFixed(0)}`;
    });
    console.log(`| ${step} | ${cells.join(' | ')} | ${holds} |`);
  });
}

/** Median of one pod-and-Service create by client-go, 20 in a row on one warm connection. */
async function clientGoSingleCreate(): Promise<number> {
  const binary = await buildRawLimit(log);
  const raw = await runRawLimit(binary, {
    pods: SINGLE_CREATES,
    workers: 1,
    namespace: `bench-single-${randomUUID().slice(0, 8)}`,
    kubeconfig: stackEnv().kubeconfig!,
  });
  return raw.createdMs / SINGLE_CREATES;
}

function printTable(era: string, latencies: Latencies): void {
  const rpcs = ['describe', 'boot', 'ps', 'logs', 'kill', 'restart', 'flush', 'terminate'];
  const columns = Object.keys(latencies);
  console.log(`\n${era} era\n`);
  console.log(`| rpc | ${columns.map((n) => `${n}: median / p99 ms (calls)`).join(' | ')} |`);
  console.log(`| --- | ${columns.map(() => '---').join(' | ')} |`);
  for (const rpc of rpcs) {
    const cells = columns.map((n) => {
      const l = latencies[n][rpc];
      return l ? `${l.median_ms} / ${l.p99_ms} (${l.calls})` : '—';
    });
    console.log(`| ${rpc} | ${cells.join(' | ')} |`);
  }
}

function printSessions(
  eras: string[],
  profiles: Profile[],
  results: Record<string, Latencies>,
  singleCreateMs: number,
): void {
  console.log(`\nsessions (client-go, one pod and its Service: ${singleCreateMs.toFixed(1)} ms)\n`);
  console.log(
    '| era | processes@hosts | boot calls, first → last answer ms | → all RUNNING ms | boot call median ms | ÷ client-go create |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const era of eras) {
    for (const { label } of profiles) {
      const r = results[era][label];
      const ratio = r.boot.median_ms / singleCreateMs;
      console.log(
        `| ${era} | ${label} | ${r.session.boot_calls_ms} | ${r.session.all_running_ms} | ${r.boot.median_ms} | ${ratio.toFixed(2)}× |`,
      );
    }
  }
}

void main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error);
    process.exit(1);
  },
);
