/**
 * Boots one process: picks its node, creates its pod (a pod of the same uuid already there is
 * adopted — a redelivered command creates nothing twice), its headless Service, and for the
 * connection server and the root controller waits until the pod is Ready, as drunc does.
 */
import { Logger } from '@nestjs/common';
import type { V1Pod, V1Service, V1Taint, V1Toleration } from '@kubernetes/client-node';
import type { KpmSettings } from '@kpm/config';
import { failureOf, hasPodEnded, podEnding } from '@kpm/kube';
import type { BootWorkerMetrics } from '../boot-worker-metrics';
import type { Cluster } from '../cluster';
import { checkStopping } from '../commands/command-context';
import type { PlannedProcess } from './planned-process';
import { waitPreviousPodGone } from './previous-pod';
import type { BootContext, PodBuilder, PodPlacement } from './pod-builder';
import { nodePortService } from './node-port-service';
import { isAlive, isReady } from './pod-state';
import { isConnectionServer } from './ready-wait';

export interface BootFailure {
  ok: false;
  code: string;
  message: string;
}
export type BootOutcome = { ok: true; pod: V1Pod } | BootFailure;

const fail = (code: string, message: string): BootFailure => ({ ok: false, code, message });

function tolerationsOf(taints: readonly V1Taint[] = []): V1Toleration[] | undefined {
  if (taints.length === 0) return undefined;
  return taints.map(({ key, value, effect }) => ({ key, operator: 'Equal', value, effect }));
}

export class ProcessBooter {
  private readonly logger = new Logger(ProcessBooter.name);

  constructor(
    private readonly cluster: Cluster,
    private readonly builder: PodBuilder,
    private readonly settings: KpmSettings,
    private readonly metrics?: BootWorkerMetrics,
  ) {}

  async boot(
    process: PlannedProcess,
    context: BootContext,
    options: { waitReady: boolean; signal?: AbortSignal },
  ): Promise<BootOutcome> {
    const outcome = await this.bootProcess(process, context, options);
    this.metrics?.processes.inc(
      outcome.ok ? { outcome: 'booted', code: '' } : { outcome: 'boot_failed', code: outcome.code },
    );
    return outcome;
  }

  private async bootProcess(
    process: PlannedProcess,
    context: BootContext,
    options: { waitReady: boolean; signal?: AbortSignal },
  ): Promise<BootOutcome> {
    const placement = await this.place(process);
    if ('ok' in placement) return placement;
    const created = await this.createOrAdopt(
      this.builder.pod(process, context, placement),
      process,
      options.signal,
    );
    if (!created.ok) return created;
    await this.ensureService(created.pod, this.builder.service(created.pod));
    const { connectionServerName } = this.settings.podManagement;
    const nodePort = isConnectionServer(process, connectionServerName)
      ? nodePortService(created.pod, this.cluster.labels, this.settings.podManagement)
      : undefined;
    if (nodePort) await this.ensureService(created.pod, nodePort);
    return options.waitReady ? this.waitReady(created.pod, options.signal) : created;
  }

  /** allowedHosts: the first usable one (drunc checks allowedHosts[0]); none: a usable node. */
  private async place(process: PlannedProcess): Promise<PodPlacement | BootFailure> {
    const { assignNodes } = this.settings.podManagement;
    const hosts = process.spec.restriction?.allowedHosts ?? [];
    if (hosts.length > 0) {
      const verdicts = await Promise.all(hosts.map((host) => this.cluster.nodes.check(host)));
      const usable = verdicts.find((v) => v.usable);
      if (!usable) {
        const why = verdicts.map((v) => `${v.name} (${v.reason})`).join(', ');
        return fail('NodeNotUsable', `no allowed host is Ready and schedulable: ${why}`);
      }
      if (assignNodes) return { nodeName: usable.name };
      // Named in allowedHosts, a tainted node is asked for: the scheduler must let it in.
      return { nodeSelectorHost: usable.name, tolerations: tolerationsOf(usable.taints) };
    }
    if (!assignNodes) return {};
    const node = await this.cluster.nodes.choose(process.uuid);
    if (!node) {
      return fail(
        'NoUsableNode',
        `no node is Ready and schedulable: ${await this.cluster.nodes.describe()}`,
      );
    }
    return { nodeName: node };
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
    const namespace = body.metadata!.namespace!;
    const name = body.metadata!.name!;
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        return { ok: true, pod: await this.cluster.pods.create(namespace, body) };
      } catch (error) {
        const failure = failureOf(error);
        if (failure.kind !== 'conflict') {
          return fail(
            failure.reason || 'PodCreateFailed',
            `could not create pod ${namespace}/${name}: ${failure.message}`,
          );
        }
      }
      const existing = await this.cluster.pods.read(namespace, name);
      if (!existing) continue; // gone meanwhile, or not kpm's: try once more, then report
      if (existing.metadata?.labels?.[this.cluster.labels.uuid] === process.uuid)
        return { ok: true, pod: existing };
      if (isAlive(existing, this.cluster.fatal, this.cluster.imagePull())) {
        const other = existing.metadata?.labels?.[this.cluster.labels.uuid];
        return fail('NameTaken', `pod ${namespace}/${name} runs another process (uuid ${other})`);
      }
      // The earlier process ended; its pod stays until deleted (restartPolicy Never): free the name.
      if (!existing.metadata?.deletionTimestamp) await this.cluster.pods.delete(existing, 0);
      const timeoutS = this.settings.podManagement.restartCleanupSeconds;
      const notGone = await waitPreviousPodGone(this.cluster, existing, timeoutS, signal);
      if (notGone) return notGone;
    }
    return fail('NameTaken', `pod ${namespace}/${name} exists and is not kpm's`);
  }

  /** drunc logs a failed Service and carries on: the process runs, only discovery lacks. */
  private async ensureService(pod: V1Pod, service: V1Service): Promise<void> {
    try {
      await this.cluster.services.ensure(pod.metadata!.namespace!, service);
    } catch (error) {
      const { reason, message } = failureOf(error);
      this.logger.warn(
        `service ${pod.metadata!.namespace}/${service.metadata!.name}: ${reason}: ${message}`,
      );
    }
  }

  private async waitReady(pod: V1Pod, signal?: AbortSignal): Promise<BootOutcome> {
    const timeoutS = this.settings.podManagement.podReadyTimeoutSeconds;
    const fatalReasons = this.cluster.fatal;
    const last = await this.cluster.waitPod(
      pod,
      (p) => isReady(p) || hasPodEnded(p, fatalReasons, this.cluster.imagePull()),
      timeoutS * 1000,
      signal,
    );
    checkStopping(signal);
    if (isReady(last)) return { ok: true, pod: last! };
    const where = `${pod.metadata!.namespace}/${pod.metadata!.name}`;
    if (!last) return fail('PodDeleted', `pod ${where} was deleted before it became Ready`);
    const ending = podEnding({ pod: last, fatalReasons, imagePull: this.cluster.imagePull() });
    if (ending.ended && ending.fatalWait) {
      const { reason, status } = ending.fatalWait;
      return fail(reason, `pod ${where}: ${status.state?.waiting?.message ?? reason}`);
    }
    if (ending.ended)
      return fail(
        'ExitedBeforeReady',
        `pod ${where} ended before it became Ready (phase ${last.status?.phase})`,
      );
    return fail(
      'PodReadyTimeout',
      `pod ${where} was not Ready within ${timeoutS} s (phase ${last.status?.phase ?? 'unknown'})`,
    );
  }
}
