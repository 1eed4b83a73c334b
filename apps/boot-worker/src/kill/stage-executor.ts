/**
 * Runs a kill plan stage by stage. Each stage's pods are deleted with the grace period; the next
 * stage starts once every pod of this one has ended (kpm's finalizer keeps a dead pod's object
 * until the watcher recorded it, so "ended" rather than "gone"). Pods still running after
 * grace + margin are killed with grace 0. The command's timeout bounds the waiting, never the
 * grace a process is given: past it, stages are still deleted in order, without waiting.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { mapConcurrent, type Clock } from '@kpm/common';
import type { ProcessPods } from '../cluster/cluster';
import type { EndingRule } from '../cluster/pod-state';
import type { ProcessPod } from '../cluster/process-pod';
import { checkStopping } from '../commands/command-context';
import type { KillPlan } from './kill-plan';

export interface StageReport {
  uuids: string[];
  /** Killed with grace 0 after outliving grace + margin. */
  escalated: string[];
  /** Still not ended when the stage moved on. */
  pending: string[];
}

export class StageExecutor {
  constructor(
    private readonly pods: Pick<ProcessPods, 'delete' | 'waitFor'>,
    private readonly endings: EndingRule,
    private readonly clock: Clock,
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
    const pods = stage.map((p) => p.pod);
    const uuidOf = new Map(stage.map((p) => [p.pod.metadata!.uid!, p.uuid]));
    const started = this.clock.now();
    await this.deleteAll(pods, plan.gracePeriodSeconds, signal);
    const escalateAt = started + (plan.gracePeriodSeconds + plan.escalationMarginSeconds) * 1000;
    let pending = await this.waitEnded(pods, Math.min(escalateAt, deadline), signal);
    let escalated: string[] = [];
    if (pending.length > 0 && escalateAt <= deadline) {
      const stragglers = pods.filter((p) => pending.includes(p.metadata!.uid!));
      await this.deleteAll(stragglers, 0, signal);
      escalated = pending;
      const forcedUntil = this.clock.now() + plan.forcedKillWaitSeconds * 1000;
      pending = await this.waitEnded(stragglers, Math.min(forcedUntil, deadline), signal);
    }
    const uuids = (uids: string[]) => uids.map((uid) => uuidOf.get(uid) ?? uid);
    return {
      uuids: stage.map((p) => p.uuid),
      escalated: uuids(escalated),
      pending: uuids(pending),
    };
  }

  private async deleteAll(pods: V1Pod[], grace: number, signal?: AbortSignal): Promise<void> {
    await mapConcurrent(pods, this.concurrency, (pod) => this.pods.delete(pod, grace));
    checkStopping(signal);
  }

  /** Waits until the pods have ended or are gone, or `until`; the uids still running. */
  private async waitEnded(pods: V1Pod[], until: number, signal?: AbortSignal): Promise<string[]> {
    const timeoutMs = Math.max(0, until - this.clock.now());
    const wait = await this.pods.waitFor(pods, (p) => this.endings.hasEnded(p), timeoutMs, signal);
    checkStopping(signal);
    return wait.pending;
  }
}
