/**
 * An all-or-nothing boot as one Kueue pod group (docs/design.md §4 "Kueue pod groups"). Kueue
 * admits a group of plain pods only once all of them exist, so every pod of the boot is made at
 * once: Kueue holds each behind its admission gate until the group's quota is reserved whole;
 * kpm's own gate (`bootOrderGate`) holds the later stages of drunc's order, lifted stage by stage
 * as a plain boot would create them (boot-order.ts). A group that cannot be made whole, or that
 * Kueue does not admit in time, leaves no pod: every process fails with the reason.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { logEvent, mapConcurrent } from '@kpm/common';
import type { KueueConfig } from '@kpm/config';
import { failureOf } from '@kpm/kube';
import { Logger } from '@nestjs/common';
import type { Cluster } from '../cluster/cluster';
import { StopRequested } from '../commands/command-context';
import { bootFailure, type BootFailure, type BootOutcome } from './boot-failure';
import {
  inBootStages,
  isConnectionServer,
  waitsForReady,
  type StagedProcesses,
} from './boot-order';
import {
  awaitsAdmission,
  bootOrderGate,
  notAdmittedReason,
  podGroupOf,
  type PodGroupMembership,
} from './kueue-pod-group';
import type { PlannedProcess } from './planned-process';
import type { BootContext } from './pod-builder';
import type { MadePod, ProcessBooter } from './process-booter';

export interface PodGroupSettings {
  connectionServerName: string;
  bootConcurrency: number;
  kueue: KueueConfig;
}

/** Where a group boot reports each process as it settles. */
export interface PodGroupRun {
  /** The boot's context; the connection server's address is set on it once known. */
  context: BootContext;
  signal: AbortSignal;
  settled(process: PlannedProcess, outcome: BootOutcome): void;
}

export class PodGroupBoot {
  private readonly logger = new Logger(PodGroupBoot.name);

  constructor(
    private readonly cluster: Cluster,
    private readonly booter: ProcessBooter,
    private readonly settings: PodGroupSettings,
  ) {}

  async boot(processes: PlannedProcess[], run: PodGroupRun): Promise<void> {
    const { kueue } = this.settings;
    const group = podGroupOf(run.context.commandId, kueue.localQueue, processes.length);
    const queued = await this.ensureQueue(run.context.session);
    if (queued) return this.failAll(processes, queued, run);
    const stages = this.stages(processes);
    const made = await this.makeAll(stages, group, run);
    if (!made) return;
    this.logger.log(
      logEvent('pod_group.made', {
        session: run.context.session,
        group: group.name,
        pods: made.size,
      }),
    );
    const unadmitted = await this.waitAdmitted(group, made, run);
    if (unadmitted) {
      this.givenUp(run, group, unadmitted);
      return this.abandon(processes, made, unadmitted, run);
    }
    this.logger.log(
      logEvent('pod_group.admitted', {
        session: run.context.session,
        group: group.name,
        pods: made.size,
      }),
    );
    await this.releaseInOrder(stages, made, run);
  }

  /** The session's LocalQueue, pointing at the configured ClusterQueue. */
  private async ensureQueue(session: string): Promise<BootFailure | undefined> {
    const { localQueue, clusterQueue } = this.settings.kueue;
    try {
      await this.cluster.kueue.ensureLocalQueue(session, localQueue, clusterQueue);
      return undefined;
    } catch (error) {
      const { reason, message } = failureOf(error);
      return bootFailure(
        'KueueUnavailable',
        `could not make the LocalQueue ${session}/${localQueue} for ClusterQueue ${clusterQueue} (podManagement.kueue; is Kueue installed?): ${reason}: ${message}`,
      );
    }
  }

  /** drunc's stages with their processes (boot-order.ts), then the rest; empty stages left out. */
  private stages(processes: readonly PlannedProcess[]): StagedProcesses[] {
    return inBootStages(processes, this.settings.connectionServerName).filter(
      (s) => s.processes.length > 0,
    );
  }

  /**
   * Every pod of the group, the first stage's free of kpm's gate. The connection server's pod
   * and Service come first: the others carry its Service's address as `localhost`. A pod that
   * cannot be made leaves the group short, so Kueue would never admit it: the rest are deleted.
   */
  private async makeAll(
    stages: readonly StagedProcesses[],
    group: PodGroupMembership,
    run: PodGroupRun,
  ): Promise<Map<PlannedProcess, MadePod> | undefined> {
    const made = new Map<PlannedProcess, MadePod>();
    const failed = new Map<PlannedProcess, BootFailure>();
    const gate = bootOrderGate(this.cluster.labels);
    const make = async (process: PlannedProcess, gated: boolean) => {
      const outcome = await this.makeOne(process, group, gated ? gate : undefined, run);
      if (outcome.ok) made.set(process, outcome);
      else failed.set(process, outcome);
      return outcome;
    };
    const server = stages[0].processes.find((p) =>
      isConnectionServer(p, this.settings.connectionServerName),
    );
    if (server) {
      const outcome = await make(server, false);
      if (outcome.ok) {
        const address = this.booter.serviceAddress(server, outcome.service);
        if (address) run.context.connectionServer = address;
      }
    }
    const others = stages.flatMap((stage, i) =>
      stage.processes.filter((p) => p !== server).map((p) => ({ p, gated: i > 0 })),
    );
    if (failed.size === 0)
      await mapConcurrent(others, this.settings.bootConcurrency, ({ p, gated }) => make(p, gated));
    if (failed.size === 0) return made;
    const [first, why] = [...failed][0];
    const short = bootFailure(
      'PodGroupIncomplete',
      `not booted: the Kueue pod group ${group.name} cannot be whole, ${first.spec.name} failed (${why.code}: ${why.message})`,
    );
    const all = stages.flatMap((s) => s.processes);
    this.givenUp(run, group, short);
    await this.deletePods([...made.values()].map((m) => m.pod));
    for (const process of all) run.settled(process, failed.get(process) ?? short);
    return undefined;
  }

  private async makeOne(
    process: PlannedProcess,
    group: PodGroupMembership,
    gate: string | undefined,
    run: PodGroupRun,
  ): Promise<MadePod | BootFailure> {
    try {
      const placement = await this.booter.place(process);
      if ('ok' in placement) return placement;
      return await this.booter.make(process, run.context, placement, {
        group,
        gate,
        signal: run.signal,
      });
    } catch (error) {
      if (error instanceof StopRequested) throw error;
      const { reason, message } = failureOf(error);
      return bootFailure(reason || 'BootFailed', message);
    }
  }

  /** Until Kueue lifts its gate from every pod; the reason it has not, at the timeout. */
  private async waitAdmitted(
    group: PodGroupMembership,
    made: Map<PlannedProcess, MadePod>,
    run: PodGroupRun,
  ): Promise<BootFailure | undefined> {
    const { admissionTimeoutSeconds, clusterQueue, localQueue } = this.settings.kueue;
    const pods = [...made.values()].map((m) => m.pod);
    const wait = await this.cluster.pods.waitFor(
      pods,
      (pod) => pod === undefined || !awaitsAdmission(pod),
      admissionTimeoutSeconds * 1000,
      run.signal,
    );
    if (run.signal.aborted) throw new StopRequested();
    const gone = pods.filter((p) => wait.last.get(p.metadata!.uid!) === undefined);
    if (wait.pending.length === 0 && gone.length === 0) return undefined;
    const session = run.context.session;
    if (gone.length > 0)
      return bootFailure(
        'PodDeleted',
        `not booted: pod ${session}/${gone[0].metadata!.name} of the Kueue pod group ${group.name} was deleted before the group was admitted`,
      );
    const conditions = await this.cluster.kueue
      .workloadConditions(session, group.name)
      .catch(() => undefined);
    return bootFailure(
      'NotAdmitted',
      `not booted: Kueue did not admit the pod group ${group.name} (${made.size} pods, LocalQueue ${session}/${localQueue}, ClusterQueue ${clusterQueue}) within ${admissionTimeoutSeconds} s (podManagement.kueue.admissionTimeoutSeconds): ${notAdmittedReason(conditions)}`,
    );
  }

  /**
   * drunc's order on admitted pods: each stage's gate lifted in turn; the connection server and
   * the root controller waited for until Ready (and connected to) before the next stage; one that
   * fails takes down every pod still held.
   */
  private async releaseInOrder(
    stages: readonly StagedProcesses[],
    made: Map<PlannedProcess, MadePod>,
    run: PodGroupRun,
  ): Promise<void> {
    const gate = bootOrderGate(this.cluster.labels);
    for (const [i, stage] of stages.entries()) {
      const later = stages.slice(i + 1).flatMap((s) => s.processes);
      if (i > 0)
        await mapConcurrent(stage.processes, this.settings.bootConcurrency, (p) =>
          this.cluster.pods.ungate(made.get(p)!.pod, gate),
        );
      for (const [j, process] of stage.processes.entries()) {
        const pod = made.get(process)!;
        const outcome: BootOutcome = waitsForReady(process, this.settings.connectionServerName)
          ? await this.settle(process, pod, run)
          : { ok: true, pod: pod.pod };
        if (outcome.ok && outcome.connectionServer)
          run.context.connectionServer = outcome.connectionServer;
        run.settled(process, outcome);
        if (outcome.ok || stage.failureCode === undefined) continue;
        const held = [...stage.processes.slice(j + 1), ...later];
        const why = `not booted: the ${stage.what} ${process.spec.name} failed (${outcome.code}: ${outcome.message})`;
        return this.abandon(held, made, bootFailure(stage.failureCode, why), run);
      }
    }
  }

  private async settle(
    process: PlannedProcess,
    made: MadePod,
    run: PodGroupRun,
  ): Promise<BootOutcome> {
    try {
      return await this.booter.settle(process, made, run.signal);
    } catch (error) {
      if (error instanceof StopRequested) throw error;
      const { reason, message } = failureOf(error);
      return bootFailure(reason || 'BootFailed', message);
    }
  }

  private givenUp(run: PodGroupRun, group: PodGroupMembership, failure: BootFailure): void {
    this.logger.warn(
      logEvent('pod_group.given_up', {
        session: run.context.session,
        group: group.name,
        code: failure.code,
        error: failure.message,
      }),
    );
  }

  /** The processes fail with `failure`; their pods are deleted (Kueue's quota goes with them). */
  private async abandon(
    processes: readonly PlannedProcess[],
    made: Map<PlannedProcess, MadePod>,
    failure: BootFailure,
    run: PodGroupRun,
  ): Promise<void> {
    await this.deletePods(processes.flatMap((p) => made.get(p)?.pod ?? []));
    this.failAll(processes, failure, run);
  }

  private failAll(
    processes: readonly PlannedProcess[],
    failure: BootFailure,
    run: PodGroupRun,
  ): void {
    for (const process of processes) run.settled(process, failure);
  }

  private async deletePods(pods: readonly V1Pod[]): Promise<void> {
    await mapConcurrent(pods, this.settings.bootConcurrency, (pod) =>
      this.cluster.pods.delete(pod, 0),
    );
  }
}
