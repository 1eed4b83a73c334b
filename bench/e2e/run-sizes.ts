import { ProcessEventType } from '@kpm/contracts';
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

/** The session of the `repeat`th measurement of N (namespaces are named after it too). */
export function sizeSession(runId: string, n: number, repeat: number): string {
  return repeat === 0 ? `${runId}-n${n}` : `${runId}-n${n}-r${repeat}`;
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
  n: number,
  timeout: string[],
): Promise<RestartMeasurement> {
  const process = midSessionProcess(n);
  const raw = await runRawLimit(run.rawBinary, {
    pods: 1,
    namespace: `${session}-raw1`,
    kubeconfig: run.kubeconfig,
  });
  run.log(`N=${n}: kpm restart --wait of ${process}`);
  const args = ['restart', '--session', session, '--name', `^${process}$`, '--wait', ...timeout];
  const kpm = await timed(run, session, ProcessEventType.killAccepted, args);
  run.log(`  ${JSON.stringify({ ...kpm, moments: undefined })}`);
  return { process, raw, kpm };
}

/** The raw limit, then kpm's boot, a restart and terminate of the same N through the CLI. */
async function measureOnce(
  run: SizeRun,
  n: number,
  repeat: number,
): Promise<SizeMeasurement & { rssMbAfterBoot: Record<string, number> }> {
  const session = sizeSession(run.runId, n, repeat);
  run.log(`N=${n}${repeat ? ` (repeat ${repeat + 1})` : ''}: raw client-go limit`);
  const raw = await runRawLimit(run.rawBinary, {
    pods: n,
    namespace: `${session}-raw`,
    kubeconfig: run.kubeconfig,
  });
  run.log(`  ${JSON.stringify(raw)}`);
  const timeout = ['--timeout', String(COMMAND_TIMEOUT_SECONDS)];
  run.log(`N=${n}: kpm boot --wait`);
  const bootArgs = ['boot', '-f', sessionFile(session, n), '--wait', ...timeout];
  const boot = await timed(run, session, ProcessEventType.bootAccepted, bootArgs);
  const rssMbAfterBoot = run.services.rss();
  run.log(
    `  ${JSON.stringify({ ...boot, moments: undefined })} rss ${JSON.stringify(rssMbAfterBoot)}`,
  );
  const restart = await measureRestart(run, session, n, timeout);
  run.log(`N=${n}: kpm terminate --wait`);
  const terminateArgs = ['terminate', '--session', session, '--wait', ...timeout];
  const terminate = await timed(run, session, ProcessEventType.killAccepted, terminateArgs);
  run.log(`  ${JSON.stringify({ ...terminate, moments: undefined })}`);
  return { raw, boot, restart, terminate, rssMbAfterBoot };
}

/**
 * N measured `repeats` times (raw and kpm alternate, so both see the same machine); the result
 * is the repeat whose boot ratio is the median, with every repeat kept beside it.
 */
export async function measureSize(run: SizeRun, n: number, repeats = 1): Promise<SizeResult> {
  const measured: SizeMeasurement[] = [];
  let rssMbAfterBoot: Record<string, number> = {};
  for (let repeat = 0; repeat < repeats; repeat++) {
    const { rssMbAfterBoot: rss, ...measurement } = await measureOnce(run, n, repeat);
    measured.push(measurement);
    if (repeat === 0) rssMbAfterBoot = rss;
  }
  const ratio = (m: SizeMeasurement) => m.boot.acceptedToCompletionMs / m.raw.createdMs;
  const median = [...measured].sort((a, b) => ratio(a) - ratio(b))[Math.floor(repeats / 2)];
  return { n, ...median, repeats: repeats > 1 ? measured : undefined, rssMbAfterBoot };
}
