/**
 * `boot`: validate against the cluster and the configuration, emit `boot.accepted`, prepare the
 * session namespace, then boot the processes — the local connection server first and waited
 * for, then the root controller and waited for, the rest concurrently under `bootConcurrency` —
 * streaming `process.booted` /
 * `process.boot-failed` as they settle.
 */
import type { V1Namespace } from '@kubernetes/client-node';
import { mapConcurrent } from '@kpm/common';
import type { BootCommand, FieldError } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import { failureOf } from '@kpm/kube';
import type { Cluster } from '../cluster';
import { StopRequested, type CommandContext } from '../commands/command-context';
import { FactBatcher, type FactSink } from '../facts/fact-sink';
import type { ProcessFacts } from '../facts/process-facts';
import { bootFailedFact, bootOutcomeFact } from '../facts/boot-outcome';
import { bootPolicyOf, validateBoot } from './boot-validator';
import { planProcesses, type PlannedProcess } from './planned-process';
import type { BootContext, PodBuilder } from './pod-builder';
import { isAlive } from './pod-state';
import type { BootFailure, BootOutcome, ProcessBooter } from './process-booter';
import { nodePortCollision } from './node-port-service';
import { bootStages, isConnectionServer, waitsForReady } from './ready-wait';
import { SessionNamespace } from './session-namespace';
import { namespaceView } from './session-ownership';

export class BootHandler {
  private readonly sessions: SessionNamespace;

  constructor(
    private readonly cluster: Cluster,
    private readonly booter: ProcessBooter,
    private readonly builder: PodBuilder,
    private readonly facts: ProcessFacts,
    private readonly sink: FactSink,
    private readonly settings: KpmSettings,
  ) {
    this.sessions = new SessionNamespace(cluster, settings);
  }

  /** Boots the command's processes; returns the reasons it is refused, if it is. */
  async handle(command: BootCommand, context: CommandContext): Promise<FieldError[]> {
    const processes = planProcesses(context.commandId, command.processes);
    const namespace = await this.cluster.namespaces.read(command.session);
    const errors = [
      ...(await this.validate(command, processes, namespace)),
      ...(await this.nodePortErrors(command.session, processes)),
    ];
    if (errors.length > 0) return errors;
    await this.accept(command, processes, context);
    await this.bootSession(command, processes, namespace, context);
    return [];
  }

  /**
   * The checks against the cluster's state and the configuration. A uuid the client chose is
   * looked up in every session: the state and the watcher key processes by uuid alone.
   */
  private async validate(
    { session, user, processes: specs }: BootCommand,
    processes: PlannedProcess[],
    namespace: V1Namespace | undefined,
  ): Promise<FieldError[]> {
    const existing = namespace ? await this.cluster.processes(session) : [];
    const chosen = specs.flatMap((spec) => (spec.uuid ? [spec.uuid] : []));
    const elsewhere = await this.cluster.processesWithUuids(chosen);
    return validateBoot(
      {
        session,
        user,
        processes,
        namespace: namespace && namespaceView(namespace, this.cluster.labels),
        existing: existing.map((p) => ({
          name: p.name,
          uuid: p.uuid,
          alive: isAlive(p.pod, this.cluster.fatal, this.cluster.imagePull()),
        })),
        elsewhere: elsewhere.map((p) => ({
          name: p.name,
          uuid: p.uuid,
          session: p.session,
          alive: isAlive(p.pod, this.cluster.fatal),
        })),
      },
      bootPolicyOf(this.settings, this.cluster.labels),
    );
  }

  /** drunc's pre-boot NodePort collision check, for a boot with the connection server. */
  private async nodePortErrors(
    session: string,
    processes: PlannedProcess[],
  ): Promise<FieldError[]> {
    const { connectionServerName, connectionServerNodePort } = this.settings.podManagement;
    const server = processes.find((p) => isConnectionServer(p, connectionServerName));
    if (!server || connectionServerNodePort === undefined) return [];
    const holder = await this.cluster.services.nodePortHolder(connectionServerNodePort);
    const at = `processes[${server.index}]`;
    return nodePortCollision(at, session, server.spec.name, connectionServerNodePort, holder);
  }

  private async accept(
    { session, user }: BootCommand,
    processes: PlannedProcess[],
    { commandId, subject }: CommandContext,
  ): Promise<void> {
    await this.sink.send([
      this.facts.bootAccepted(subject, {
        commandId,
        session,
        user,
        processes: processes.map((p) => ({
          uuid: p.uuid,
          name: p.spec.name,
          treeId: p.spec.treeId,
          role: p.role,
        })),
      }),
    ]);
  }

  /** Prepares the namespace, then boots; facts go out in batches as the processes settle. */
  private async bootSession(
    { session, user }: BootCommand,
    processes: PlannedProcess[],
    namespace: V1Namespace | undefined,
    context: CommandContext,
  ): Promise<void> {
    const bootContext: BootContext = { session, user, commandId: context.commandId };
    const batcher = new FactBatcher(this.sink, {
      lingerMs: 200,
      maxBatch: 250,
      // A failed heartbeat means a rebalance: the transport notices it; nothing to do here.
      onFlush: () => void context.heartbeat().catch(() => undefined),
    });
    try {
      const hostAccess = processes.some((p) => this.builder.needsHostAccess(p, user));
      const level = hostAccess ? 'privileged' : 'baseline';
      const unusable = await this.sessions.prepare(namespace, session, user, context.signal, level);
      if (unusable) {
        for (const p of processes)
          batcher.add(this.failed(p, bootContext, context.subject, unusable));
        return;
      }
      await this.bootAll(processes, bootContext, context, batcher);
    } finally {
      await batcher.close();
    }
  }

  /**
   * drunc's order: the local connection server, waited for until Ready (the others connect to
   * it); then the root controller, waited for until Ready; only then the rest, concurrently. A
   * first one that fails fails everything after it without creating a pod.
   */
  private async bootAll(
    processes: PlannedProcess[],
    bootContext: BootContext,
    context: CommandContext,
    batcher: FactBatcher,
  ): Promise<void> {
    const pm = this.settings.podManagement;
    const boot = async (p: PlannedProcess): Promise<BootOutcome> => {
      const waitReady = waitsForReady(p, pm.connectionServerName);
      const outcome = await this.bootOne(p, bootContext, waitReady, context.signal);
      batcher.add(this.factOf(p, bootContext, context.subject, outcome));
      return outcome;
    };
    const failRest = (rest: PlannedProcess[], failure: BootFailure) => {
      for (const p of rest) batcher.add(this.failed(p, bootContext, context.subject, failure));
    };
    let rest = processes;
    for (const stage of bootStages(pm.connectionServerName)) {
      const first = rest.filter(stage.selects);
      rest = rest.filter((p) => !stage.selects(p));
      for (const p of first) {
        const outcome = await boot(p);
        if (outcome.ok) continue;
        const why = `not booted: the ${stage.what} ${p.spec.name} failed (${outcome.code}: ${outcome.message})`;
        failRest([...first.slice(first.indexOf(p) + 1), ...rest], {
          ok: false,
          code: stage.failureCode,
          message: why,
        });
        return;
      }
    }
    await mapConcurrent(rest, pm.bootConcurrency, boot);
  }

  /** Unexpected API failures (after retries) fail the process with the API server's reason. */
  private async bootOne(
    process: PlannedProcess,
    context: BootContext,
    waitReady: boolean,
    signal: AbortSignal,
  ): Promise<BootOutcome> {
    try {
      return await this.booter.boot(process, context, { waitReady, signal });
    } catch (error) {
      if (error instanceof StopRequested) throw error;
      const { reason, message } = failureOf(error);
      return { ok: false, code: reason || 'BootFailed', message };
    }
  }

  private factOf(
    process: PlannedProcess,
    context: BootContext,
    subject: string,
    outcome: BootOutcome,
  ) {
    return bootOutcomeFact(this.facts, this.builder, process, context, subject, outcome);
  }

  private failed(
    process: PlannedProcess,
    context: BootContext,
    subject: string,
    failure: BootFailure,
  ) {
    return bootFailedFact(this.facts, process, context, subject, failure);
  }
}
