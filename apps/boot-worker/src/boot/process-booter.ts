/**
 * Boots one process: picks its node, creates its pod (a pod of the same uuid already there is
 * adopted — a redelivered command creates nothing twice), its Services, and when told waits until
 * the pod is Ready, as drunc does for the connection server and the root controller.
 */
import { Logger } from '@nestjs/common';
import type { V1Pod, V1Service, V1Taint, V1Toleration } from '@kubernetes/client-node';
import type { PodManagementConfig } from '@kpm/config';
import { failureOf } from '@kpm/kube';
import type { BootWorkerMetrics } from '../boot-worker-metrics';
import type { Cluster } from '../cluster/cluster';
import { isReady, type EndingRule } from '../cluster/pod-state';
import { checkStopping } from '../commands/command-context';
import { bootFailure, type BootFailure, type BootOutcome } from './boot-failure';
import type { PlannedProcess } from './planned-process';
import { waitPreviousPodGone } from './previous-pod';
import type { BootContext, PodBuilder, PodPlacement } from './pod-builder';
import { nodePortService } from './node-port-service';
import { isConnectionServer } from './boot-order';

/** A name taken meanwhile is tried again this often (its earlier pod freed each time). */
const CREATE_ATTEMPTS = 3;

interface BootOptions {
  waitReady: boolean;
  signal?: AbortSignal;
}

export class ProcessBooter {
  private readonly logger = new Logger(ProcessBooter.name);

  constructor(
    private readonly cluster: Cluster,
    private readonly builder: PodBuilder,
    private readonly endings: EndingRule,
    private readonly settings: PodManagementConfig,
    private readonly metrics?: BootWorkerMetrics,
  ) {}

  async boot(
    process: PlannedProcess,
    context: BootContext,
    options: BootOptions,
  ): Promise<BootOutcome> {
    const placement = await this.place(process);
    const outcome =
      'ok' in placement ? placement : await this.start(process, context, placement, options);
    this.metrics?.processes.inc(
      outcome.ok ? { outcome: 'booted', code: '' } : { outcome: 'boot_failed', code: outcome.code },
    );
    return outcome;
  }

  /** The pod, its Services, and the wait for Ready when asked. */
  private async start(
    process: PlannedProcess,
    context: BootContext,
    placement: PodPlacement,
    { waitReady, signal }: BootOptions,
  ): Promise<BootOutcome> {
    const created = await this.createOrAdopt(
      this.builder.pod(process, context, placement),
      process,
      signal,
    );
    if (!created.ok) return created;
    await this.ensureService(this.builder.service(created.pod));
    if (isConnectionServer(process, this.settings.connectionServerName)) {
      const nodePort = nodePortService(created.pod, this.cluster.labels, this.settings);
      if (nodePort) await this.ensureService(nodePort);
    }
    return waitReady ? this.waitReady(created.pod, signal) : created;
  }

  /** allowedHosts: the first usable one (drunc checks allowedHosts[0]); none: a usable node. */
  private async place(process: PlannedProcess): Promise<PodPlacement | BootFailure> {
    const { nodes } = this.cluster;
    const { assignNodes } = this.settings;
    const hosts = process.spec.restriction?.allowedHosts ?? [];
    if (hosts.length > 0) {
      const verdicts = await Promise.all(hosts.map((host) => nodes.check(host)));
      const usable = verdicts.find((v) => v.usable);
      if (!usable) {
        const why = verdicts.map((v) => `${v.name} (${v.reason})`).join(', ');
        return bootFailure('NodeNotUsable', `no allowed host is Ready and schedulable: ${why}`);
      }
      if (assignNodes) return { nodeName: usable.name };
      // Named in allowedHosts, a tainted node is asked for: the scheduler must let it in.
      return { nodeSelectorHost: usable.name, tolerations: tolerationsOf(usable.taints) };
    }
    if (!assignNodes) return {};
    const node = await nodes.choose(process.uuid);
    if (node) return { nodeName: node };
    return bootFailure(
      'NoUsableNode',
      `no node is Ready and schedulable: ${await nodes.summary()}`,
    );
  }

  /**
   * 409 means a pod of that name exists: ours (same uuid) is adopted; an ended one of an earlier
   * process is deleted and waited out (the watcher releases it once recorded); a running one is
   * refused.
   */
  private async createOrAdopt(
    body: V1Pod,
    process: PlannedProcess,
    signal?: AbortSignal,
  ): Promise<BootOutcome> {
    const { pods, labels } = this.cluster;
    const where = `${body.metadata!.namespace}/${body.metadata!.name}`;
    for (let attempt = 1; attempt <= CREATE_ATTEMPTS; attempt++) {
      try {
        return { ok: true, pod: await pods.create(body) };
      } catch (error) {
        const failure = failureOf(error);
        if (failure.kind !== 'conflict')
          return bootFailure(
            failure.reason || 'PodCreateFailed',
            `could not create pod ${where}: ${failure.message}`,
          );
      }
      const existing = await pods.read(body.metadata!.namespace!, body.metadata!.name!);
      if (!existing) continue; // gone meanwhile, or not kpm's: try once more, then report
      const uuid = existing.metadata?.labels?.[labels.uuid];
      if (uuid === process.uuid) return { ok: true, pod: existing };
      if (this.endings.isAlive(existing))
        return bootFailure('NameTaken', `pod ${where} runs another process (uuid ${uuid})`);
      const notGone = await this.freeName(existing, signal);
      if (notGone) return notGone;
    }
    return bootFailure('NameTaken', `pod ${where} exists and is not kpm's`);
  }

  /** The earlier process ended; its pod stays until deleted (restartPolicy Never): free the name. */
  private async freeName(ended: V1Pod, signal?: AbortSignal): Promise<BootFailure | undefined> {
    if (!ended.metadata?.deletionTimestamp) await this.cluster.pods.delete(ended, 0);
    const timeoutS = this.settings.restartCleanupSeconds;
    return waitPreviousPodGone(this.cluster.pods, ended, timeoutS, signal);
  }

  /** drunc logs a failed Service and carries on: the process runs, only discovery lacks. */
  private async ensureService(service: V1Service): Promise<void> {
    try {
      await this.cluster.services.ensure(service);
    } catch (error) {
      const { reason, message } = failureOf(error);
      const { namespace, name } = service.metadata ?? {};
      this.logger.warn(`service ${namespace}/${name}: ${reason}: ${message}`);
    }
  }

  private async waitReady(pod: V1Pod, signal?: AbortSignal): Promise<BootOutcome> {
    const timeoutS = this.settings.podReadyTimeoutSeconds;
    const uid = pod.metadata!.uid!;
    const wait = await this.cluster.pods.waitFor(
      [pod],
      (p) => isReady(p) || this.endings.hasEnded(p),
      timeoutS * 1000,
      signal,
    );
    checkStopping(signal);
    const last = wait.last.get(uid);
    if (isReady(last)) return { ok: true, pod: last! };
    const where = `${pod.metadata!.namespace}/${pod.metadata!.name}`;
    if (!last) return bootFailure('PodDeleted', `pod ${where} was deleted before it became Ready`);
    const ending = this.endings.ending(last);
    if (ending.ended && ending.fatalWait) {
      const { reason, status } = ending.fatalWait;
      return bootFailure(reason, `pod ${where}: ${status.state?.waiting?.message ?? reason}`);
    }
    const phase = last.status?.phase;
    if (ending.ended)
      return bootFailure(
        'ExitedBeforeReady',
        `pod ${where} ended before it became Ready (phase ${phase})`,
      );
    return bootFailure(
      'PodReadyTimeout',
      `pod ${where} was not Ready within ${timeoutS} s (phase ${phase ?? 'unknown'})`,
    );
  }
}

/** Tolerations of a tainted node a process names in its allowed hosts. */
function tolerationsOf(taints: readonly V1Taint[] = []): V1Toleration[] | undefined {
  if (taints.length === 0) return undefined;
  return taints.map(({ key, value, effect }) => ({ key, operator: 'Equal', value, effect }));
}
