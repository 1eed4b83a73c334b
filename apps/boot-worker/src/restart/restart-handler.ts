/**
 * `restart`: every process the query selects, as drunc restarts every uuid its query matches.
 * Kill them in drunc's stages, wait until each pod object is gone (the watcher releases it once
 * the termination is recorded), boot each again with the same uuid and the spec from its
 * annotation, in drunc's boot order. A restart record per process makes a redelivered restart
 * resume where it stopped.
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { shutdownStages, treeDepth, type FieldError, type RestartCommand } from '@kpm/contracts';
import type { BootChecks } from '../boot/boot-checks';
import type { BootOutcome } from '../boot/boot-failure';
import { bootStages, waitsForReady } from '../boot/boot-order';
import { podGroupOfPod } from '../boot/kueue-pod-group';
import type { PlannedProcess } from '../boot/planned-process';
import { waitPreviousPodGone } from '../boot/previous-pod';
import type { ProcessBooter } from '../boot/process-booter';
import type { Cluster } from '../cluster/cluster';
import type { ProcessPod } from '../cluster/process-pod';
import type { CommandContext } from '../commands/command-context';
import type { ProcessFacts } from '../facts/process-facts';
import { selectSome } from '../kill/exactly-one';
import type { Killer, KillRequest } from '../kill/killer';
import { podUidsOf } from '../kill/kill-plan';
import {
  isTrustedRecord,
  plannedRestart,
  restartLabel,
  restartRecord,
  targetOf,
  targetOfPod,
  type RestartTarget,
} from './restart-record';

interface RestartSettings {
  operatorUsers: readonly string[];
  restartCleanupSeconds: number;
  connectionServerName: string;
  controllerExecutables: readonly string[];
}

/** One process of the restart: its target, its record if resumed, its old process if still there. */
interface Restarting {
  target: RestartTarget;
  process: PlannedProcess;
  record?: V1ConfigMap;
  old?: ProcessPod;
}

type Found = { ok: true; restarting: Restarting[] } | { ok: false; errors: FieldError[] };

export class RestartHandler {
  constructor(
    private readonly cluster: Cluster,
    private readonly checks: BootChecks,
    private readonly killer: Killer,
    private readonly booter: ProcessBooter,
    private readonly facts: ProcessFacts,
    private readonly settings: RestartSettings,
  ) {}

  async handle(command: RestartCommand, context: CommandContext): Promise<FieldError[]> {
    const found = await this.find(command, context);
    if (!found.ok) return found.errors;
    const { restarting } = found;
    const refused = restarting.flatMap((r) => this.policyRefusals(r));
    if (refused.length > 0) return refused;
    const request: KillRequest = { kind: 'restart', session: restarting[0].target.session };
    // Restarted already (a redelivery): its facts again, with the same ids.
    const done = restarting.filter((r) => r.old?.commandId === context.commandId);
    const todo = restarting.filter((r) => !done.includes(r));
    const records = restarting.map(
      (r) => r.record ?? restartRecord(this.cluster.labels, context.commandId, r.target),
    );
    for (const r of todo)
      if (!r.record) await this.cluster.restartRecords.create(records[restarting.indexOf(r)]);
    await this.stop(restarting, todo, request, context);
    const outcomes = await this.boot(todo, context);
    for (const r of restarting) {
      const outcome = done.includes(r) ? { ok: true as const, pod: r.old!.pod } : outcomes.get(r)!;
      await this.emit(r, outcome, context);
    }
    for (const record of records) await this.cluster.restartRecords.delete(record);
    return [];
  }

  /** Restarts in progress under this command id (a redelivery), else the query's processes. */
  private async find(command: RestartCommand, context: CommandContext): Promise<Found> {
    const { labels, restartRecords, pods } = this.cluster;
    const records = await this.trusted(
      await restartRecords.list(restartLabel(labels, context.commandId)),
    );
    const recorded = records.flatMap((record) => {
      const target = targetOf(record, labels);
      return target ? [{ target, record }] : [];
    });
    if (recorded.length > 0) {
      const running = await pods.processes(recorded[0].target.session);
      return {
        ok: true,
        restarting: recorded.map(({ target, record }) =>
          this.restarting(
            target,
            record,
            running.find((p) => p.uuid === target.uuid),
          ),
        ),
      };
    }
    const acting = { user: command.user, operators: this.settings.operatorUsers };
    const some = await selectSome(pods, command.query, acting, context.subject);
    if (!some.ok) return some;
    const restarting: Restarting[] = [];
    const errors: FieldError[] = [];
    for (const old of some.processes) {
      const target = targetOfPod(old, labels);
      if (target.ok) restarting.push(this.restarting(target.target, undefined, old));
      else errors.push(...target.errors);
    }
    return errors.length > 0 ? { ok: false, errors } : { ok: true, restarting };
  }

  private restarting(target: RestartTarget, record?: V1ConfigMap, old?: ProcessPod): Restarting {
    const process = plannedRestart(target, this.settings.controllerExecutables);
    return { target, process, ...(record ? { record } : {}), ...(old ? { old } : {}) };
  }

  /**
   * Restart records only from kpm's own namespaces, owned by the user the record names: anyone
   * who can write a ConfigMap elsewhere could otherwise forge one, labels and all.
   */
  private async trusted(found: V1ConfigMap[]): Promise<V1ConfigMap[]> {
    const out: V1ConfigMap[] = [];
    for (const record of found) {
      const name = record.metadata?.namespace;
      const namespace = name ? await this.cluster.namespaces.read(name) : undefined;
      if (isTrustedRecord(record, namespace, this.cluster.labels)) out.push(record);
    }
    return out;
  }

  /** The stored spec through the rules a boot passes (it may predate today's settings). */
  private policyRefusals({ target, process }: Restarting): FieldError[] {
    const errors = this.checks.specRefusals(target.session, target.user, process);
    if (errors.length === 0) return [];
    const why = errors.map((e) => `${e.path.replace(/^processes\[0\]\.?/, 'spec.')} ${e.message}`);
    return [
      {
        path: 'query',
        message: `selects ${target.spec.name} (${target.session}), whose stored spec the pod policy refuses now: ${why.join('; ')}`,
      },
    ];
  }

  /**
   * One kill of every process in drunc's stages (its acceptance names them all, those already
   * gone too: a redelivery), then each old pod waited out until gone.
   */
  private async stop(
    all: readonly Restarting[],
    todo: readonly Restarting[],
    request: KillRequest,
    context: CommandContext,
  ): Promise<void> {
    const olds = todo.flatMap((r) =>
      r.old && r.old.commandId !== context.commandId ? [r.old] : [],
    );
    const stages = shutdownStages(
      all.map((r) => ({ uuid: r.target.uuid, role: r.process.role, treeId: r.target.spec.treeId })),
    );
    if (olds.length === all.length) await this.killer.kill(olds, request, context);
    else {
      await this.killer.accept(
        stages,
        request,
        this.killer.timing(request, stages.length),
        context,
        podUidsOf(olds),
      );
      if (olds.length > 0) await this.killer.kill(olds, request, context);
    }
  }

  /**
   * Each process booted again once its old pod is gone, in drunc's boot order: the connection
   * server first, the other infrastructure applications, the root controller, then the rest;
   * the connection server and the root controller waited for until Ready, as a boot does.
   */
  private async boot(
    todo: readonly Restarting[],
    context: CommandContext,
  ): Promise<Map<Restarting, BootOutcome>> {
    const outcomes = new Map<Restarting, BootOutcome>();
    const timeoutS = this.settings.restartCleanupSeconds;
    for (const r of todo) {
      if (!r.old) continue;
      const notGone = await waitPreviousPodGone(
        this.cluster.pods,
        r.old.pod,
        timeoutS,
        context.signal,
      );
      if (notGone) outcomes.set(r, notGone);
    }
    const session = todo[0]?.target.session;
    let connectionServer = session ? await this.booter.sessionConnectionServer(session) : undefined;
    for (const r of inBootOrder(todo, this.settings.connectionServerName)) {
      if (outcomes.has(r)) continue;
      const waitReady = waitsForReady(r.process, this.settings.connectionServerName);
      const bootContext = { ...this.bootContext(r.target, context), connectionServer };
      // A process of a Kueue pod group joins its group again, as its replacement.
      const group = podGroupOfPod(r.old?.pod);
      const outcome = await this.booter.boot(r.process, bootContext, {
        waitReady,
        signal: context.signal,
        group,
      });
      if (outcome.ok && outcome.connectionServer) connectionServer = outcome.connectionServer;
      outcomes.set(r, outcome);
    }
    return outcomes;
  }

  private async emit(r: Restarting, outcome: BootOutcome, context: CommandContext): Promise<void> {
    const fact = this.facts.bootOutcome(
      context.subject,
      r.process,
      this.bootContext(r.target, context),
      outcome,
    );
    await this.facts.send(fact);
  }

  private bootContext(target: RestartTarget, { commandId }: CommandContext) {
    return { session: target.session, user: target.user, commandId };
  }
}

/**
 * The processes in drunc's boot order (boot-order.ts); the rest as drunc's driver boots a tree,
 * parents first (by tree depth, drunc's `root_first`), the query's order within a depth.
 */
function inBootOrder(todo: readonly Restarting[], connectionServerName: string): Restarting[] {
  const stages = bootStages(connectionServerName);
  const rank = (r: Restarting) => {
    const i = stages.findIndex((s) => s.selects(r.process));
    return i < 0 ? stages.length : i;
  };
  const depth = (r: Restarting) => treeDepth(r.target.spec.treeId);
  return [...todo].sort((a, b) => rank(a) - rank(b) || depth(a) - depth(b));
}
