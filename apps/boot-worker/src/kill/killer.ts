/**
 * What kill, terminate and restart share: emit `kill.accepted` with drunc's stages, then run
 * them. The state service completes the command from the watcher's terminations.
 */
import type { KillKind } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import type { BootWorkerMetrics } from '../boot-worker-metrics';
import type { Cluster } from '../cluster';
import type { CommandContext } from '../commands/command-context';
import type { FactSink } from '../facts/fact-sink';
import type { ProcessFacts } from '../facts/process-facts';
import { planKill, uuidStages } from './kill-plan';
import { killProgressTimeoutSeconds, killTimeoutSeconds, killTiming } from './kill-timeout';
import type { ProcessPod } from './process-pod';
import { StageExecutor, type StageReport } from './stage-executor';

export interface KillRequest {
  kind: KillKind;
  session?: string;
  gracePeriodSeconds?: number;
  timeoutSeconds?: number;
}

/** The timing `kill.accepted` carries. */
export interface AcceptedTiming {
  gracePeriodSeconds: number;
  timeoutSeconds: number;
  progressTimeoutSeconds?: number;
}

export class Killer {
  private readonly executor: StageExecutor;

  constructor(
    cluster: Cluster,
    private readonly facts: ProcessFacts,
    private readonly sink: FactSink,
    private readonly settings: KpmSettings,
    private readonly metrics?: BootWorkerMetrics,
  ) {
    this.executor = new StageExecutor(
      {
        deletePod: (pod, grace) => cluster.pods.delete(pod, grace),
        waitEnded: (pods, timeoutMs, signal) => cluster.waitEnded(pods, timeoutMs, signal),
        now: () => Date.now(),
      },
      settings.podManagement.bootConcurrency,
    );
  }

  async kill(
    processes: readonly ProcessPod[],
    request: KillRequest,
    context: CommandContext,
  ): Promise<StageReport[]> {
    const startedAt = Date.now();
    const timing = killTiming(this.settings.podManagement, request.gracePeriodSeconds);
    const plan = planKill(processes, timing, request.timeoutSeconds);
    await this.accept(uuidStages(plan), request, plan, context);
    const reports = await this.executor.run(plan, startedAt, context.signal);
    for (const report of reports) this.metrics?.killEscalations.inc(report.escalated.length);
    return reports;
  }

  /** The `kill.accepted` fact alone: a resumed restart re-emits it (same id) without a pod to kill. */
  async accept(
    stages: string[][],
    request: KillRequest,
    timing: AcceptedTiming,
    context: CommandContext,
  ): Promise<void> {
    await this.sink.send([
      this.facts.killAccepted(context.subject, {
        commandId: context.commandId,
        kind: request.kind,
        session: request.session,
        stages,
        gracePeriodSeconds: timing.gracePeriodSeconds,
        timeoutSeconds: timing.timeoutSeconds,
        ...(timing.progressTimeoutSeconds === undefined
          ? {}
          : { progressTimeoutSeconds: timing.progressTimeoutSeconds }),
      }),
    ]);
  }

  /** The timing of a kill of `stageCount` stages under the settings and the request. */
  timing(request: KillRequest, stageCount = 1): AcceptedTiming {
    const timing = killTiming(this.settings.podManagement, request.gracePeriodSeconds);
    return {
      gracePeriodSeconds: timing.gracePeriodSeconds,
      timeoutSeconds: killTimeoutSeconds(timing, stageCount, request.timeoutSeconds),
      progressTimeoutSeconds: killProgressTimeoutSeconds(timing, request.timeoutSeconds),
    };
  }
}
