/**
 * What kill, terminate and restart share: emit `kill.accepted` with drunc's stages, then run
 * them. The state service completes the command from the watcher's terminations.
 */
import type { Clock } from '@kpm/common';
import type { KillKind } from '@kpm/contracts';
import type { BootWorkerMetrics } from '../boot-worker-metrics';
import type { ProcessPod } from '../cluster/process-pod';
import type { CommandContext } from '../commands/command-context';
import type { ProcessFacts } from '../facts/process-facts';
import { planKill, podUidsOf, uuidStages } from './kill-plan';
import {
  killProgressTimeoutSeconds,
  killTimeoutSeconds,
  killTiming,
  killTimingWithin,
  type KillSettings,
} from './kill-timeout';
import type { StageExecutor, StageReport } from './stage-executor';

export interface KillRequest {
  kind: KillKind;
  session?: string;
  gracePeriodSeconds?: number;
  timeoutSeconds?: number;
  /** The caller's deadline: the stages are planned to end inside it (killTimingWithin). */
  deadlineSeconds?: number;
}

/** The timing `kill.accepted` carries. */
interface AcceptedTiming {
  gracePeriodSeconds: number;
  timeoutSeconds: number;
  progressTimeoutSeconds?: number;
}

export class Killer {
  constructor(
    private readonly executor: StageExecutor,
    private readonly facts: ProcessFacts,
    private readonly settings: KillSettings,
    private readonly clock: Clock,
    private readonly metrics?: BootWorkerMetrics,
  ) {}

  async kill(
    processes: readonly ProcessPod[],
    request: KillRequest,
    context: CommandContext,
  ): Promise<StageReport[]> {
    const startedAt = this.clock.now();
    const plan = this.plan(processes, request);
    await this.accept(uuidStages(plan), request, plan, context, podUidsOf(plan.stages.flat()));
    const reports = await this.executor.run(plan, startedAt, context.signal);
    for (const report of reports) this.metrics?.killEscalations.inc(report.escalated.length);
    return reports;
  }

  /** drunc's stages, timed by the settings or planned inside the caller's deadline. */
  private plan(processes: readonly ProcessPod[], request: KillRequest) {
    const { gracePeriodSeconds, deadlineSeconds, timeoutSeconds } = request;
    const timing = killTiming(this.settings, gracePeriodSeconds);
    if (deadlineSeconds === undefined) return planKill(processes, timing, timeoutSeconds);
    const stages = planKill(processes, timing).stages.length;
    const within = killTimingWithin(this.settings, stages, deadlineSeconds, gracePeriodSeconds);
    return planKill(processes, within, timeoutSeconds ?? deadlineSeconds);
  }

  /**
   * The `kill.accepted` fact alone: a resumed restart re-emits it (same id) without a pod to
   * kill. `podUids` names the pod of each uuid it found, so the state service waits for those
   * pods' ends, and not again for one it recorded already (docs/design.md §6.6).
   */
  async accept(
    stages: string[][],
    request: KillRequest,
    timing: AcceptedTiming,
    context: CommandContext,
    podUids: Record<string, string> = {},
  ): Promise<void> {
    const { progressTimeoutSeconds } = timing;
    await this.facts.send(
      this.facts.killAccepted(context.subject, {
        commandId: context.commandId,
        kind: request.kind,
        session: request.session,
        stages,
        ...(Object.keys(podUids).length === 0 ? {} : { podUids }),
        gracePeriodSeconds: timing.gracePeriodSeconds,
        timeoutSeconds: timing.timeoutSeconds,
        ...(progressTimeoutSeconds === undefined ? {} : { progressTimeoutSeconds }),
      }),
    );
  }

  /** The timing of a kill of `stageCount` stages under the settings and the request. */
  timing(request: KillRequest, stageCount = 1): AcceptedTiming {
    const timing = killTiming(this.settings, request.gracePeriodSeconds);
    return {
      gracePeriodSeconds: timing.gracePeriodSeconds,
      timeoutSeconds: killTimeoutSeconds(timing, stageCount, request.timeoutSeconds),
      progressTimeoutSeconds: killProgressTimeoutSeconds(timing, request.timeoutSeconds),
    };
  }
}
