import { StateBench, stateProcess } from '../../test/support/state-bench';
import {
  bootAccepted,
  killAccepted,
  processBooted,
  terminated,
  testProcesses,
} from '../../test/support/state-facts';
import { stackEnv, uniqueTopicPrefix } from '../../test/support/stack-env';
import type { ServiceProcess } from '../../test/support/service-process';
import { rssMb } from './kpm-services';
import type { RestorePoint } from './results';

/** Sessions are this big; the history grows by whole sessions, spread over the partitions. */
const SESSION_PROCESSES = 1000;

/** One session's life on the fact topics, and its two completions awaited: 2n + 2 records. */
async function liveSession(bench: StateBench, name: string): Promise<number> {
  const processes = testProcesses(name, SESSION_PROCESSES, 'app');
  await bench.send(
    'process-events',
    bootAccepted(`${name}-boot`, name, processes),
    ...processes.map((p) => processBooted(`${name}-boot`, p)),
  );
  await bench.completion(`${name}-boot`, 300_000);
  await bench.send('process-events', killAccepted(`${name}-kill`, name, processes));
  await bench.send('terminations', ...processes.map((p) => terminated(p, 143)));
  await bench.completion(`${name}-kill`, 300_000);
  return 2 * SESSION_PROCESSES + 2;
}

async function restoreSeconds(state: ServiceProcess): Promise<number> {
  const text = await (await fetch(`${state.url}/metrics`)).text();
  const match = /^kpm_state_restore_seconds_sum(?:\{[^}]*\})? (\S+)$/m.exec(text);
  if (!match) throw new Error('state: no kpm_state_restore_seconds_sum in /metrics');
  return Number(match[1]);
}

/**
 * The state service's restore time against the size of its history: sessions of 1000 processes
 * are lived through (boot, kill, every termination), then the service is restarted and its own
 * restore metric read, until the history holds `processes[i]` processes.
 */
export async function measureRestore(
  processes: readonly number[],
  log: (message: string) => void,
): Promise<RestorePoint[]> {
  const prefix = uniqueTopicPrefix('bench-restore');
  const state = stateProcess(prefix, 'bench-restore', stackEnv().topicReplication);
  await state.start(180_000);
  const bench = await new StateBench(prefix, ['completions']).start();
  const points: RestorePoint[] = [];
  let lived = 0;
  let records = 0;
  try {
    for (const target of processes) {
      while (lived < target) {
        records += await liveSession(bench, `restore-${lived / SESSION_PROCESSES}`);
        lived += SESSION_PROCESSES;
      }
      await state.kill('SIGTERM');
      await state.start(600_000);
      const seconds = await restoreSeconds(state);
      const point = { processes: lived, records, seconds, rssMb: rssMb(state.pid!) ?? 0 };
      log(`  restore ${JSON.stringify(point)}`);
      points.push(point);
    }
  } finally {
    await bench.stop();
    await state.kill('SIGTERM');
  }
  return points;
}
