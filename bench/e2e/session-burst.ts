/**
 * Many sessions ending at once (issue: "bursts of many sessions"): `sessions` sessions of
 * `size` processes are booted one after another, then all their terminates are sent together.
 * kpm's drain rate — pods whose termination reached Kafka per second, from the first
 * `kill.accepted` to the last termination — is compared with the raw limit for as many pods
 * (rawlimit's deletes-and-wait, finalizers released as the watcher does), and every
 * terminate's completion is kept with its status.
 */
import { connectProcessManager } from '@kpm/client';
import { ProcessEventType } from '@kpm/contracts';
import { stackEnv } from '../../test/support/stack-env';
import type { FactClock } from './fact-clock';
import { benchProcesses } from './kpm-cli';
import { runRawLimit } from './raw-limit';
import type { BurstResult } from './results';
import type { SizeRun } from './run-sizes';

const BOOT_TIMEOUT_MS = 600_000;
const DRAIN_TIMEOUT_MS = 1_800_000;

export function burstSessions(runId: string, sessions: number): string[] {
  return Array.from({ length: sessions }, (_, i) => `${runId}-burst-${i}`);
}

export async function measureSessionBurst(
  run: SizeRun,
  sessions: number,
  size: number,
): Promise<BurstResult> {
  const pods = sessions * size;
  run.log(`burst: raw client-go limit for ${pods} pods`);
  const raw = await runRawLimit(run.rawBinary, {
    pods,
    namespace: `${run.runId}-raw-burst`,
    kubeconfig: run.kubeconfig,
  });
  run.log(`  ${JSON.stringify(raw)}`);
  const names = burstSessions(run.runId, sessions);
  const client = connectProcessManager({
    brokers: stackEnv().brokers,
    topicPrefix: run.services.prefix,
    user: 'bench',
  });
  try {
    await bootAll(run, client, names, size);
    run.log(`burst: ${sessions} terminates of ${size} processes sent at once`);
    await Promise.all(names.map((session) => client.terminate({ session, user: 'bench' })));
    return await drained(run.clock, names, size, raw);
  } finally {
    await client.close();
  }
}

async function bootAll(
  run: SizeRun,
  client: ReturnType<typeof connectProcessManager>,
  names: readonly string[],
  size: number,
): Promise<void> {
  for (const session of names) {
    const processes = benchProcesses(size);
    const result = await client.boot(
      { session, user: 'bench', processes },
      { wait: true, timeoutMs: BOOT_TIMEOUT_MS },
    );
    run.log(`  booted ${session}: ${result.completion?.status}`);
  }
}

/** Waits for every terminate's completion and every pod's termination record. */
async function drained(
  clock: FactClock,
  names: readonly string[],
  size: number,
  raw: BurstResult['raw'],
): Promise<BurstResult> {
  const completions = await Promise.all(
    names.map((session) => clock.command(session, ProcessEventType.killAccepted, DRAIN_TIMEOUT_MS)),
  );
  // Each completion above was found through its accepted fact, so each is there.
  const acceptedAt = names.map((s) => clock.latestAccepted(s, ProcessEventType.killAccepted)!);
  const firstAcceptedMs = Math.min(...acceptedAt.map((a) => a.atMs));
  const terminations = names.flatMap((s) => clock.terminationsBySession.get(s) ?? []);
  const lastTerminationMs = Math.max(...terminations);
  const completedAt = acceptedAt.map((a, i) => a.atMs + completions[i].acceptedToCompletionMs);
  const statuses: Record<string, number> = {};
  for (const c of completions) statuses[c.status] = (statuses[c.status] ?? 0) + 1;
  const pods = names.length * size;
  const drainMs = lastTerminationMs - firstAcceptedMs;
  return {
    sessions: names.length,
    size,
    raw,
    rawPodsPerSecond: (pods / raw.goneMs) * 1000,
    terminationsSeen: terminations.length,
    drainMs,
    podsPerSecond: (terminations.length / drainMs) * 1000,
    lastCompletionMs: Math.max(...completedAt) - firstAcceptedMs,
    statuses,
  };
}
