import { ProcessEventType } from '@kpm/contracts';
import { duneProcesses, midSessionReadout } from './dune-session';
import type { FactClock } from './fact-clock';
import { benchProcesses, runCli, sessionFile } from './kpm-cli';
import type { KpmServices } from './kpm-services';
import { runRawLimit } from './raw-limit';
import type {
  KpmCommandTiming,
  RestartMeasurement,
  SizeResult,
  SizeRun as SizeMeasurement,
} from './results';

export interface SizeRun {
  rawBinary: string;
  kubeconfig: string;
  services: KpmServices;
  clock: FactClock;
  /** Unique per run: namespaces and sessions are named after it. */
  runId: string;
  log: (message: string) => void;
}

/** How long a command may take before the bench gives up on it. */
const COMMAND_TIMEOUT_SECONDS = 900;

/** What is measured: N flat applications, or a DUNE-shaped session of N over these hosts. */
export interface SizeProfile {
  n: number;
  hosts?: readonly string[];
}

/** The session of the `repeat`th measurement of a profile (namespaces are named after it too). */
export function sizeSession(runId: string, profile: SizeProfile, repeat: number): string {
  const name = profile.hosts
    ? `${runId}-n${profile.n}h${profile.hosts.length}`
    : `${runId}-n${profile.n}`;
  return repeat === 0 ? name : `${name}-r${repeat}`;
}

/** "200@110" for a DUNE-shaped profile, "200" for a flat one. */
export function profileLabel(profile: SizeProfile): string {
  return profile.hosts ? `${profile.n}@${profile.hosts.length}` : String(profile.n);
}

/** Runs `kpm <args>` and times it by its records, with the CPU the services spent meanwhile. */
async function timed(
  run: SizeRun,
  session: string,
  acceptedType: string,
  args: string[],
): Promise<KpmCommandTiming> {
  const cpuBefore = run.services.cpu();
  const cli = await runCli(args, { KPM_TOPIC_PREFIX: run.services.prefix });
  const cpuAfter = run.services.cpu();
  if (cli.exitCode !== 0) run.log(`  kpm exited ${cli.exitCode}: ${cli.stderr.trim().slice(-500)}`);
  const fact = await run.clock.command(session, acceptedType, 60_000);
  const serviceCpuMs = Object.fromEntries(
    Object.entries(cpuAfter).map(([service, ms]) => [service, ms - (cpuBefore[service] ?? ms)]),
  );
  return {
    acceptedToCompletionMs: fact.acceptedToCompletionMs,
    status: fact.status,
    cliMs: Math.round(cli.ms),
    moments: { ...fact.moments, cliStartedAtMs: cli.startedAtMs, cliExitedAtMs: cli.exitedAtMs },
    serviceCpuMs,
  };
}

/**
 * The readout application restarted mid-session: one in the middle of the session's tree, as an
 * operator restarts one that misbehaves while the others run.
 */
export function midSessionProcess(n: number): string {
  return benchProcesses(n)[Math.floor(n / 2)].name;
}

/** One pod's raw restart, then kpm's restart of one process of the booted session. */
async function measureRestart(
  run: SizeRun,
  session: string,
  profile: SizeProfile,
  timeout: string[],
): Promise<RestartMeasurement> {
  const { n } = profile;
  const process = profile.hosts ? midSessionReadout(n) : midSessionProcess(n);
  const raw = await runRawLimit(run.rawBinary, {
    pods: 1,
    namespace: `${session}-raw1`,
    kubeconfig: run.kubeconfig,
    nodes: profile.hosts?.slice(0, 1),
  });
  run.log(`N=${profileLabel(profile)}: kpm restart --wait of ${process}`);
  const args = ['restart', '--session', session, '--name', `^${process}$`, '--wait', ...timeout];
  const kpm = await timed(run, session, ProcessEventType.killAccepted, args);
  run.log(`  ${JSON.stringify({ ...kpm, moments: undefined })}`);
  return { process, raw, kpm };
}

/** The raw limit, then kpm's boot, a restart and terminate of the same N through the CLI. */
async function measureOnce(
  run: SizeRun,
  profile: SizeProfile,
  repeat: number,
): Promise<SizeMeasurement & { rssMbAfterBoot: Record<string, number> }> {
  const { n, hosts } = profile;
  const label = profileLabel(profile);
  const session = sizeSession(run.runId, profile, repeat);
  run.log(`N=${label}${repeat ? ` (repeat ${repeat + 1})` : ''}: raw client-go limit`);
  const raw = await runRawLimit(run.rawBinary, {
    pods: n,
    namespace: `${session}-raw`,
    kubeconfig: run.kubeconfig,
    nodes: hosts,
  });
  run.log(`  ${JSON.stringify(raw)}`);
  const timeout = ['--timeout', String(COMMAND_TIMEOUT_SECONDS)];
  run.log(`N=${label}: kpm boot --wait`);
  const file = sessionFile(session, n, hosts ? duneProcesses(n, hosts) : undefined);
  const bootArgs = ['boot', '-f', file, '--wait', ...timeout];
  const boot = await timed(run, session, ProcessEventType.bootAccepted, bootArgs);
  const rssMbAfterBoot = run.services.rss();
  run.log(
    `  ${JSON.stringify({ ...boot, moments: undefined })} rss ${JSON.stringify(rssMbAfterBoot)}`,
  );
  const restart = await measureRestart(run, session, profile, timeout);
  run.log(`N=${label}: kpm terminate --wait`);
  const terminateArgs = ['terminate', '--session', session, '--wait', ...timeout];
  const terminate = await timed(run, session, ProcessEventType.killAccepted, terminateArgs);
  run.log(`  ${JSON.stringify({ ...terminate, moments: undefined })}`);
  return { raw, boot, restart, terminate, rssMbAfterBoot };
}

/**
 * N measured `repeats` times (raw and kpm alternate, so both see the same machine); the result
 * is the repeat whose boot ratio is the median, with every repeat kept beside it.
 */
export async function measureSize(
  run: SizeRun,
  profile: SizeProfile,
  repeats = 1,
): Promise<SizeResult> {
  const { n } = profile;
  const measured: SizeMeasurement[] = [];
  let rssMbAfterBoot: Record<string, number> = {};
  for (let repeat = 0; repeat < repeats; repeat++) {
    const { rssMbAfterBoot: rss, ...measurement } = await measureOnce(run, profile, repeat);
    measured.push(measurement);
    if (repeat === 0) rssMbAfterBoot = rss;
  }
  const ratio = (m: SizeMeasurement) => m.boot.acceptedToCompletionMs / m.raw.createdMs;
  const median = [...measured].sort((a, b) => ratio(a) - ratio(b))[Math.floor(repeats / 2)];
  return {
    n,
    hosts: profile.hosts?.length,
    ...median,
    repeats: repeats > 1 ? measured : undefined,
    rssMbAfterBoot,
  };
}
