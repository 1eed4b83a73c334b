/**
 * Runs a kill plan stage by stage. Each stage's pods are deleted with the grace period; the next
 * stage starts once every pod of this one has ended (kpm's finalizer keeps a dead pod's object
 * until the watcher recorded it, so "ended" rather than "gone"). Pods still running after
 * grace + margin are killed with grace 0. The command's timeout bounds the waiting, never the
 * grace a process is given: past it, stages are still deleted in order, without waiting.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { mapConcurrent } from '@kpm/common';
import { checkStopping } from '../commands/command-context';
import type { KillPlan } from './kill-plan';
import type { ProcessPod } from './process-pod';

export interface KillPorts {
  /** Deletes with the grace period; false when the pod is already gone. */
  deletePod(pod: V1Pod, gracePeriodSeconds: number): Promise<boolean>;
  /** Waits until every pod has ended or is gone; resolves with the uids still running. */
  waitEnded(pods: readonly V1Pod[], timeoutMs: number, signal?: AbortSignal): Promise<string[]>;
  now(): number;
}

export interface StageReport {
  uuids: string[];
  /** Killed with grace 0 after outliving grace + margin. */
  escalated: string[];
  /** Still not ended when the stage moved on. */
  pending: string[];
}

export class StageExecutor {
  constructor(
    private readonly ports: KillPorts,
    private readonly concurrency: number,
  ) {}

  async run(plan: KillPlan, startedAt: number, signal?: AbortSignal): Promise<StageReport[]> {
    const deadline = startedAt + plan.timeoutSeconds * 1000;
    const reports: StageReport[] = [];
    for (const stage of plan.stages) {
      reports.push(await this.runStage(stage, plan, deadline, signal));
    }
    return reports;
  }

  private async runStage(
    stage: ProcessPod[],
    plan: KillPlan,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<StageReport> {
    const { ports } = this;
    const pods = stage.map((p) => p.pod);
    const uuidOf = new Map(stage.map((p) => [p.pod.metadata!.uid!, p.uuid]));
    const started = ports.now();
    await this.deleteAll(pods, plan.gracePeriodSeconds, signal);
    const escalateAt = started + (plan.gracePeriodSeconds + plan.escalationMarginSeconds) * 1000;
    let pending = await ports.waitEnded(pods, until(Math.min(escalateAt, deadline), ports), signal);
    this.checkStopping(signal);
    let escalated: string[] = [];
    if (pending.length > 0 && escalateAt <= deadline) {
      const stragglers = pods.filter((p) => pending.includes(p.metadata!.uid!));
      await this.deleteAll(stragglers, 0, signal);
      escalated = pending;
      const forcedUntil = Math.min(ports.now() + plan.forcedKillWaitSeconds * 1000, deadline);
      pending = await ports.waitEnded(stragglers, until(forcedUntil, ports), signal);
      this.checkStopping(signal);
    }
    const uuids = (uids: string[]) => uids.map((uid) => uuidOf.get(uid) ?? uid);
    return {
      uuids: stage.map((p) => p.uuid),
      escalated: uuids(escalated),
      pending: uuids(pending),
    };
  }

  private async deleteAll(pods: V1Pod[], grace: number, signal?: AbortSignal): Promise<void> {
    await mapConcurrent(pods, this.concurrency, (pod) => this.ports.deletePod(pod, grace));
    this.checkStopping(signal);
  }

  private checkStopping(signal?: AbortSignal): void {
    checkStopping(signal);
  }
}

function until(time: number, ports: KillPorts): number {
  return Math.max(0, time - ports.now());
}
