/**
 * `restart`: exactly one process; kill it, wait until its pod object is gone (the watcher
 * releases it once the termination is recorded), boot it again with the same uuid and the spec
 * from its annotation. A restart record makes a redelivered restart resume where it stopped.
 */
import {
  roleFromTreeId,
  validateData,
  ProcessSpec,
  type FieldError,
  type RestartCommand,
} from '@kpm/contracts';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { KpmSettings } from '@kpm/config';
import { bootPolicyOf, validateBoot } from '../boot/boot-validator';
import type { Cluster } from '../cluster';
import type { PlannedProcess } from '../boot/planned-process';
import type { PodBuilder } from '../boot/pod-builder';
import type { BootOutcome, ProcessBooter } from '../boot/process-booter';
import { waitPreviousPodGone } from '../boot/previous-pod';
import { waitsForReady } from '../boot/ready-wait';
import type { CommandContext } from '../commands/command-context';
import { bootOutcomeFact } from '../facts/boot-outcome';
import type { FactSink } from '../facts/fact-sink';
import type { ProcessFacts } from '../facts/process-facts';
import { selectOne } from '../kill/exactly-one';
import type { Killer, KillRequest } from '../kill/killer';
import type { ProcessPod } from '../kill/process-pod';
import {
  isTrustedRecord,
  restartLabel,
  restartRecord,
  targetOf,
  type RestartTarget,
} from './restart-record';

type Found =
  { ok: true; target: RestartTarget; old?: ProcessPod } | { ok: false; errors: FieldError[] };

export class RestartHandler {
  constructor(
    private readonly cluster: Cluster,
    private readonly killer: Killer,
    private readonly booter: ProcessBooter,
    private readonly builder: PodBuilder,
    private readonly facts: ProcessFacts,
    private readonly sink: FactSink,
    private readonly settings: KpmSettings,
  ) {}

  async handle(command: RestartCommand, context: CommandContext): Promise<FieldError[]> {
    const { labels, records } = this.cluster;
    const [record] = await this.trusted(
      await records.list(restartLabel(labels, context.commandId)),
    );
    const recorded = record && targetOf(record, labels);
    const found = recorded
      ? await this.fromRecord(recorded)
      : await this.fromQuery(command, context.subject);
    if (!found.ok) return found.errors;
    const { target, old } = found;
    const refused = this.policyErrors(target);
    if (refused.length > 0) return refused;
    const request: KillRequest = { kind: 'restart', session: target.session };
    if (old?.commandId === context.commandId) {
      // Restarted already (this is a redelivery): the facts again, with the same ids.
      await this.killer.accept([[old.uuid]], request, this.killer.timing(request), context);
      await this.emit(this.planned(target), target, { ok: true, pod: old.pod }, context);
    } else {
      if (!recorded)
        await records.create(target.session, restartRecord(labels, context.commandId, target));
      await this.restart(target, old, request, context);
    }
    await records.delete(record ?? restartRecord(labels, context.commandId, target));
    return [];
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

  /** The stored spec through the same policy a boot passes (it may predate today's settings). */
  private policyErrors(target: RestartTarget): FieldError[] {
    const process = this.planned(target);
    const errors = validateBoot(
      { session: target.session, user: target.user, processes: [process], existing: [] },
      bootPolicyOf(this.settings, this.cluster.labels),
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

  /** A resumed restart: the target from its record, the old pod if it is still there. */
  private async fromRecord(target: RestartTarget): Promise<Found> {
    const old = (await this.cluster.processes(target.session)).find((p) => p.uuid === target.uuid);
    return { ok: true, target, old };
  }

  private async fromQuery(command: RestartCommand, subject: string): Promise<Found> {
    const one = await selectOne(this.cluster, command.query, 'restart', subject);
    if (!one.ok) return one;
    const target = this.targetFrom(one.process);
    return target.ok ? { ok: true, target: target.target, old: one.process } : target;
  }

  private async restart(
    target: RestartTarget,
    old: ProcessPod | undefined,
    request: KillRequest,
    context: CommandContext,
  ): Promise<void> {
    const process = this.planned(target);
    if (old) {
      await this.killer.kill([old], request, context);
      const timeoutS = this.settings.podManagement.restartCleanupSeconds;
      const notGone = await waitPreviousPodGone(this.cluster, old.pod, timeoutS, context.signal);
      if (notGone) return this.emit(process, target, notGone, context);
    } else {
      // The old pod went before a crash interrupted this restart: its kill was accepted already.
      await this.killer.accept([[target.uuid]], request, this.killer.timing(request), context);
    }
    const waitReady = waitsForReady(process, this.settings.podManagement.connectionServerName);
    const outcome = await this.booter.boot(
      process,
      { session: target.session, user: target.user, commandId: context.commandId },
      { waitReady, signal: context.signal },
    );
    await this.emit(process, target, outcome, context);
  }

  private async emit(
    process: PlannedProcess,
    owner: { session: string; user?: string },
    outcome: BootOutcome,
    context: CommandContext,
  ): Promise<void> {
    const bootContext = {
      session: owner.session,
      user: owner.user ?? '',
      commandId: context.commandId,
    };
    await this.sink.send([
      bootOutcomeFact(this.facts, this.builder, process, bootContext, context.subject, outcome),
    ]);
  }

  private planned(target: RestartTarget): PlannedProcess {
    return {
      index: 0,
      uuid: target.uuid,
      spec: target.spec,
      role: roleFromTreeId(target.spec.treeId),
    };
  }

  /** The spec stored on the pod, validated again: it is read back from the cluster. */
  private targetFrom(
    process: ProcessPod,
  ): { ok: true; target: RestartTarget } | { ok: false; errors: FieldError[] } {
    const raw = process.pod.metadata?.annotations?.[this.cluster.labels.specAnnotation];
    const refuse = (why: string) => ({
      ok: false as const,
      errors: [
        {
          path: 'query',
          message: `selects ${process.name} (${process.session}), which cannot be restarted: ${why}`,
        },
      ],
    });
    if (!raw || !process.user) return refuse('its pod carries no process spec or user');
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return refuse('its process spec annotation is not JSON');
    }
    const checked = validateData(ProcessSpec, parsed);
    if (!checked.ok)
      return refuse(
        `its process spec is invalid (${checked.errors.map((e) => `${e.path} ${e.message}`).join('; ')})`,
      );
    const spec = { ...checked.value, uuid: process.uuid };
    return {
      ok: true,
      target: { uuid: process.uuid, session: process.session, user: process.user, spec },
    };
  }
}
