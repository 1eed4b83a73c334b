/**
 * A kill as drunc runs it: stages in shutdown order (unknown → application → segment-controller
 * → root-controller → infrastructure-applications), segment controllers one stage per depth of
 * their tree id, deepest first; each stage deleted with the grace period.
 */
import { shutdownGroups } from '@kpm/contracts';
import { killProgressTimeoutSeconds, killTimeoutSeconds, type KillTiming } from './kill-timeout';
import type { ProcessPod } from '../cluster/process-pod';

export interface KillPlan extends KillTiming {
  stages: ProcessPod[][];
  /** The command's bound: the state service reports `timed_out` with the rest pending after it. */
  timeoutSeconds: number;
  /** Without the command's own bound: it ends only once no pod has ended for this long. */
  progressTimeoutSeconds?: number;
}

export function planKill(
  processes: readonly ProcessPod[],
  timing: KillTiming,
  timeoutSeconds?: number,
): KillPlan {
  const seen = new Set<string>();
  const unique = processes.filter((p) => !seen.has(p.uuid) && seen.add(p.uuid));
  const stages = shutdownGroups(unique);
  return {
    ...timing,
    stages,
    timeoutSeconds: killTimeoutSeconds(timing, stages.length, timeoutSeconds),
    progressTimeoutSeconds: killProgressTimeoutSeconds(timing, timeoutSeconds),
  };
}

export function uuidStages(plan: KillPlan): string[][] {
  return plan.stages.map((stage) => stage.map((p) => p.uuid));
}

/** The pod of each process, by uuid: what `kill.accepted` names as the pods it waits for. */
export function podUidsOf(processes: readonly ProcessPod[]): Record<string, string> {
  const podUids: Record<string, string> = {};
  for (const p of processes) {
    const uid = p.pod.metadata?.uid;
    if (uid) podUids[p.uuid] = uid;
  }
  return podUids;
}
