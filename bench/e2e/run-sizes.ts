import { ProcessEventType } from '@kpm/contracts';
import type { FactClock } from './fact-clock';
import { runCli, sessionFile, type CliRun } from './kpm-cli';
import type { KpmServices } from './kpm-services';
import { runRawLimit } from './raw-limit';
import type { KpmCommandTiming, SizeResult } from './results';

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

async function timed(
  run: SizeRun,
  session: string,
  acceptedType: string,
  cli: CliRun,
): Promise<KpmCommandTiming> {
  if (cli.exitCode !== 0) run.log(`  kpm exited ${cli.exitCode}: ${cli.stderr.trim().slice(-500)}`);
  const fact = await run.clock.command(session, acceptedType, 60_000);
  return { ...fact, cliMs: Math.round(cli.ms) };
}

/** One N: the raw limit, then kpm's boot and terminate of the same N through the CLI. */
export async function measureSize(run: SizeRun, n: number): Promise<SizeResult> {
  run.log(`N=${n}: raw client-go limit`);
  const raw = await runRawLimit(run.rawBinary, {
    pods: n,
    namespace: `${run.runId}-raw-${n}`,
    kubeconfig: run.kubeconfig,
  });
  run.log(`  ${JSON.stringify(raw)}`);
  const env = { KPM_TOPIC_PREFIX: run.services.prefix };
  const session = `${run.runId}-n${n}`;
  const timeout = ['--timeout', String(COMMAND_TIMEOUT_SECONDS)];
  run.log(`N=${n}: kpm boot --wait`);
  const bootCli = await runCli(['boot', '-f', sessionFile(session, n), '--wait', ...timeout], env);
  const boot = await timed(run, session, ProcessEventType.bootAccepted, bootCli);
  const rssMbAfterBoot = run.services.rss();
  run.log(`  ${JSON.stringify(boot)} rss ${JSON.stringify(rssMbAfterBoot)}`);
  run.log(`N=${n}: kpm terminate --wait`);
  const terminateCli = await runCli(['terminate', '--session', session, '--wait', ...timeout], env);
  const terminate = await timed(run, session, ProcessEventType.killAccepted, terminateCli);
  run.log(`  ${JSON.stringify(terminate)}`);
  return { n, raw, boot, terminate, rssMbAfterBoot };
}
