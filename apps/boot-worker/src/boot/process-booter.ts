/**
 * Boots one process: picks its node, creates its pod (a pod of the same uuid already there is
 * adopted — a redelivered command creates nothing twice), its Service, and when told waits until
 * the pod is Ready and, as drunc does for the connection server and the root controller,
 * connects to it (`reachabilityCheck`, reachability.ts).
 */
import { Logger } from '@nestjs/common';
import type { V1Pod, V1Service, V1Taint, V1Toleration } from '@kubernetes/client-node';
import { logEvent, type Clock } from '@kpm/common';
import type { PodManagementConfig } from '@kpm/config';
import { failureOf } from '@kpm/kube';
import type { BootWorkerMetrics } from '../boot-worker-metrics';
import type { Cluster } from '../cluster/cluster';
import type { ProcessPod } from '../cluster/process-pod';
import { isReady, type EndingRule } from '../cluster/pod-state';
import { checkStopping } from '../commands/command-context';
import { bootFailure, type BootFailure, type BootOutcome } from './boot-failure';
import type { PlannedProcess } from './planned-process';
import { waitPreviousPodGone } from './previous-pod';
import type { BootContext, PodBuilder, PodPlacement } from './pod-builder';
import { isConnectionServer } from './boot-order';
import { isConnectionServer as isDruncConnectionServer } from './process-network';
import { inPodGroup, type PodGroupMembership } from './kueue-pod-group';
import { reachTarget, type Reachability } from './reachability';

/** A name taken meanwhile is tried again this often (its earlier pod freed each time). */
const CREATE_ATTEMPTS = 3;

interface BootOptions {
  waitReady: boolean;
  signal?: AbortSignal;
  /** The Kueue pod group the pod joins (kueue-pod-group.ts): a restart's, as its old pod's. */
  group?: PodGroupMembership;
}

/** A pod made with its Service, not yet waited for. */
export interface MadePod {
  ok: true;
  pod: V1Pod;
  service: V1Service;
}

export class ProcessBooter {
  private readonly logger = new Logger(ProcessBooter.name);

  constructor(
    private readonly cluster: Cluster,
    private readonly builder: PodBuilder,
    private readonly endings: EndingRule,
    private readonly settings: PodManagementConfig,
    private readonly clock: Clock,
    private readonly reach?: Reachability,
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
    this.count(outcome);
    return outcome;
  }

  /** The boot-worker's count of processes booted and failed, by code. */
  count(outcome: BootOutcome): void {
    this.metrics?.processes.inc(
      outcome.ok ? { outcome: 'booted', code: '' } : { outcome: 'boot_failed', code: outcome.code },
    );
  }

  /** The pod, its Service, and the wait for Ready (and drunc's connect) when asked. */
  private async start(
    process: PlannedProcess,
    context: BootContext,
    placement: PodPlacement,
    { waitReady, signal, group }: BootOptions,
  ): Promise<BootOutcome> {
    const made = await this.make(process, context, placement, { group, signal });
    if (!made.ok || !waitReady) return made;
    return this.settle(process, made, signal);
  }

  /**
   * The pod (in its Kueue pod group, behind kpm's boot-order gate, when told) and its Service,
   * neither waited for.
   */
  async make(
    process: PlannedProcess,
    context: BootContext,
    placement: PodPlacement,
    options: { group?: PodGroupMembership; gate?: string; signal?: AbortSignal } = {},
  ): Promise<MadePod | BootFailure> {
    let body = this.builder.pod(process, context, placement);
    if (options.group) body = inPodGroup(body, options.group, options.gate);
    const created = await this.createOrAdopt(body, process, options.signal);
    if (!created.ok) return created;
    const service = await this.expose(created.pod, process);
    if ('ok' in service) return service;
    return { ok: true, pod: created.pod, service };
  }

  /** The wait for Ready and drunc's connect; a connection server says where it is reached. */
  async settle(process: PlannedProcess, made: MadePod, signal?: AbortSignal): Promise<BootOutcome> {
    const ready = await this.waitReady(made.pod, signal);
    if (!ready.ok) return ready;
    const unreachable = await this.reachable(ready.pod, process, signal);
    if (unreachable) return unreachable;
    const address = this.connectionServerAddress(process, ready.pod, made.service);
    return address ? { ...ready, connectionServer: address } : ready;
  }

  /**
   * Where the other pods will reach a connection server known only by its Service so far (a pod
   * group's pods are all made before it runs): its cluster IP; undefined for another process, or
   * when `localhostAlias` is none.
   */
  serviceAddress(process: PlannedProcess, service: V1Service): string | undefined {
    return this.connectionServerAddress(process, undefined, service);
  }

  /**
   * The Service named after the pod. drunc logs a headless Service it could not make and carries
   * on (only discovery lacks); a NodePort it could not make fails the boot, as in drunc.
   */
  private async expose(pod: V1Pod, process: PlannedProcess): Promise<V1Service | BootFailure> {
    const body = this.builder.service(pod, process);
    try {
      return await this.cluster.services.ensure(body);
    } catch (error) {
      const { reason, message } = failureOf(error);
      const { namespace, name } = body.metadata ?? {};
      if (body.spec?.type === 'NodePort') {
        return bootFailure(
          'NodePortFailed',
          `could not create the NodePort Service ${namespace}/${name}: ${reason}: ${message}`,
        );
      }
      this.logger.warn(
        logEvent('service.ensure_failed', {
          session: namespace,
          service: name,
          reason,
          error: message,
        }),
      );
      return body;
    }
  }

  /** drunc's own connect to a Ready connection server or root controller, until it answers. */
  private async reachable(
    pod: V1Pod,
    process: PlannedProcess,
    signal?: AbortSignal,
  ): Promise<BootFailure | undefined> {
    const check = this.settings.reachabilityCheck;
    const target = this.reach && reachTarget(pod, this.builder.network(process), check);
    if (!target || !this.reach) return undefined;
    const timeoutMs = this.settings.socketRetryTimeoutSeconds * 1000;
    const deadline = this.clock.now() + this.settings.serviceStartupTimeoutSeconds * 1000;
    const where = `${target.host}:${target.port}`;
    for (;;) {
      const ok =
        target.protocol === 'http'
          ? await this.reach.http(`http://${where}/`, timeoutMs)
          : await this.reach.tcp(target.host, target.port, timeoutMs);
      checkStopping(signal);
      if (ok) return undefined;
      if (this.clock.now() >= deadline) {
        const seconds = this.settings.serviceStartupTimeoutSeconds;
        return bootFailure(
          'NotReachable',
          `${process.spec.name} was Ready but ${target.protocol.toUpperCase()} ${where} (${check}) did not answer within ${seconds} s (podManagement.reachabilityCheck)`,
        );
      }
      await this.clock.sleep(timeoutMs, signal);
    }
  }

  /**
   * The address of a connection server already running in the session (a boot without one, a
   * restart), for the localhost alias of the pods booted now; undefined without one.
   */
  async sessionConnectionServer(
    session: string,
    /** The session's infrastructure applications when just read (a boot's checks). */
    infrastructure?: readonly ProcessPod[],
  ): Promise<string | undefined> {
    if (this.settings.localhostAlias === 'none') return undefined;
    const candidates =
      infrastructure ?? (await this.cluster.pods.inRole(session, 'infrastructure-applications'));
    const running = candidates.find(
      (p) =>
        isDruncConnectionServer(
          { role: p.role, spec: { name: p.name } },
          this.settings.connectionServerName,
        ) &&
        this.endings.isAlive(p.pod) &&
        p.pod.status?.podIP,
    );
    if (!running) return undefined;
    const service = await this.cluster.services.read(session, running.podName);
    const process = { role: running.role, spec: { name: running.name } } as PlannedProcess;
    return service && this.connectionServerAddress(process, running.pod, service);
  }

  /** Where the other pods reach the connection server as `localhost` (`localhostAlias`). */
  private connectionServerAddress(
    process: PlannedProcess,
    pod: V1Pod | undefined,
    service: V1Service,
  ): string | undefined {
    if (!isConnectionServer(process, this.settings.connectionServerName)) return undefined;
    const alias = this.settings.localhostAlias;
    if (alias === 'pod-ip') return pod?.status?.podIP;
    if (alias === 'cluster-ip' && service.spec?.clusterIP !== 'None')
      return service.spec?.clusterIP;
    return undefined;
  }

  /** allowedHosts: the first usable one (drunc checks allowedHosts[0]); none: a usable node. */
  async place(process: PlannedProcess): Promise<PodPlacement | BootFailure> {
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
