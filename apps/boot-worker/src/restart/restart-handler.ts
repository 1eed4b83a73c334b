/**
 * `restart`: exactly one process; kill it, wait until its pod object is gone (the watcher
 * releases it once the termination is recorded), boot it again with the same uuid and the spec
 * from its annotation. A restart record makes a redelivered restart resume where it stopped.
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { FieldError, RestartCommand } from '@kpm/contracts';
import type { BootChecks } from '../boot/boot-checks';
import type { BootOutcome } from '../boot/boot-failure';
import { waitsForReady } from '../boot/boot-order';
import { waitPreviousPodGone } from '../boot/previous-pod';
import type { ProcessBooter } from '../boot/process-booter';
import type { Cluster } from '../cluster/cluster';
import type { ProcessPod } from '../cluster/process-pod';
import type { CommandContext } from '../commands/command-context';
import type { ProcessFacts } from '../facts/process-facts';
import { selectOne } from '../kill/exactly-one';
import type { Killer, KillRequest } from '../kill/killer';
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

/** What a restart acts on: the target, its record if resumed, the old process if still there. */
type Found =
  | { ok: true; target: RestartTarget; record?: V1ConfigMap; old?: ProcessPod }
  | { ok: false; errors: FieldError[] };

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
    const { target, record, old } = found;
    const refused = this.policyRefusals(target);
    if (refused.length > 0) return refused;
    const request: KillRequest = { kind: 'restart', session: target.session };
    const { labels, restartRecords } = this.cluster;
    const stored = record ?? restartRecord(labels, context.commandId, target);
    if (old?.commandId === context.commandId) {
      // Restarted already (this is a redelivery): the facts again, with the same ids.
      await this.killer.accept([[old.uuid]], request, this.killer.timing(request), context);
      await this.emit(target, { ok: true, pod: old.pod }, context);
    } else {
      if (!record) await restartRecords.create(stored);
      await this.restart(target, old, request, context);
    }
    await restartRecords.delete(stored);
    return [];
  }

  /** A restart in progress under this command id (a redelivery), else the query's one process. */
  private async find(command: RestartCommand, context: CommandContext): Promise<Found> {
    const { labels, restartRecords, pods } = this.cluster;
    const [record] = await this.trusted(
      await restartRecords.list(restartLabel(labels, context.commandId)),
    );
    const recorded = record && targetOf(record, labels);
    if (recorded) {
      const old = (await pods.processes(recorded.session)).find((p) => p.uuid === recorded.uuid);
      return { ok: true, target: recorded, record, old };
    }
    const acting = { user: command.user, operators: this.settings.operatorUsers };
    const one = await selectOne(pods, command.query, 'restart', acting, context.subject);
    if (!one.ok) return one;
    const target = targetOfPod(one.process, labels);
    return target.ok ? { ok: true, target: target.target, old: one.process } : target;
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
  private policyRefusals(target: RestartTarget): FieldError[] {
    const errors = this.checks.specRefusals(
      target.session,
      target.user,
      plannedRestart(target, this.settings.controllerExecutables),
    );
    if (errors.length === 0) return [];
    const why = errors.map((e) => `${e.path.replace(/^processes\[0\]\.?/, 'spec.')} ${e.message}`);
    return [
      {
        path: 'query',
        message: `selects ${target.spec.name} (${target.session}), whose stored spec the pod policy refuses now: ${why.join('; ')}`,
      },
    ];
  }

  private async restart(
    target: RestartTarget,
    old: ProcessPod | undefined,
    request: KillRequest,
    context: CommandContext,
  ): Promise<void> {
    if (old) {
      await this.killer.kill([old], request, context);
      const timeoutS = this.settings.restartCleanupSeconds;
      const notGone = await waitPreviousPodGone(
        this.cluster.pods,
        old.pod,
        timeoutS,
        context.signal,
      );
      if (notGone) return this.emit(target, notGone, context);
    } else {
      // The old pod went before a crash interrupted this restart: its kill was accepted already.
      await this.killer.accept([[target.uuid]], request, this.killer.timing(request), context);
    }
    const process = plannedRestart(target, this.settings.controllerExecutables);
    const waitReady = waitsForReady(process, this.settings.connectionServerName);
    const connectionServer = await this.booter.sessionConnectionServer(target.session);
    const bootContext = { ...this.bootContext(target, context), connectionServer };
    const outcome = await this.booter.boot(process, bootContext, {
      waitReady,
      signal: context.signal,
    });
    await this.emit(target, outcome, context);
  }

  private async emit(
    target: RestartTarget,
    outcome: BootOutcome,
    context: CommandContext,
  ): Promise<void> {
    const fact = this.facts.bootOutcome(
      context.subject,
      plannedRestart(target, this.settings.controllerExecutables),
      this.bootContext(target, context),
      outcome,
    );
    await this.facts.send(fact);
  }

  private bootContext(target: RestartTarget, { commandId }: CommandContext) {
    return { session: target.session, user: target.user, commandId };
  }
}
