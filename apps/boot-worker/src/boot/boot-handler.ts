/**
 * `boot`: check it against the cluster and the configuration, emit `boot.accepted` while the
 * session's namespace is prepared, then boot the processes in drunc's order (boot-order.ts) —
 * an all-or-nothing boot as one Kueue pod group when Kueue is configured (pod-group-boot.ts) —
 * streaming `process.booted` / `process.boot-failed` as they settle.
 */
import { mapConcurrent, type Batcher } from '@kpm/common';
import type { BootCommand, EncodedRecord, FieldError } from '@kpm/contracts';
import type { PodManagementConfig } from '@kpm/config';
import { failureOf } from '@kpm/kube';
import { StopRequested, type CommandContext } from '../commands/command-context';
import type { ProcessFacts } from '../facts/process-facts';
import type { BootChecks } from './boot-checks';
import { bootFailure, type BootFailure, type BootOutcome } from './boot-failure';
import { inBootStages, isConnectionServer, waitsForReady } from './boot-order';
import { planProcesses, type PlannedProcess } from './planned-process';
import type { BootContext } from './pod-builder';
import type { PodGroupBoot } from './pod-group-boot';
import type { ProcessBooter } from './process-booter';
import type { SessionNamespace } from './session-namespace';

/** Facts of a boot go out at most this many a record batch. */
const FACT_BATCH = 250;

type BootSettings = Pick<
  PodManagementConfig,
  'connectionServerName' | 'bootConcurrency' | 'controllerExecutables'
>;

/** Where the facts of one boot go, with its context. */
interface BootRun {
  context: BootContext;
  subject: string;
  signal: AbortSignal;
  facts: Batcher<EncodedRecord>;
}

export class BootHandler {
  constructor(
    private readonly checks: BootChecks,
    private readonly sessions: SessionNamespace,
    private readonly booter: ProcessBooter,
    private readonly facts: ProcessFacts,
    private readonly settings: BootSettings,
    /** Kueue pod groups (podManagement.kueue), for all-or-nothing boots; none without Kueue. */
    private readonly groups?: PodGroupBoot,
  ) {}

  /** Boots the command's processes; returns the reasons it is refused, if it is. */
  async handle(command: BootCommand, context: CommandContext): Promise<FieldError[]> {
    const { session, user } = command;
    const processes = planProcesses(
      context.commandId,
      command.processes,
      this.settings.controllerExecutables,
      command.exitPolicy,
    );
    // Each a round trip to the API server: read side by side.
    const [namespace, found] = await Promise.all([
      this.sessions.read(session),
      this.checks.processesFor(command),
    ]);
    const refusals = await this.checks.refusals(command, processes, namespace, found);
    if (refusals.length > 0) return refusals;
    const run = this.startRun(command, context);
    try {
      // The acceptance is on Kafka before any pod exists: the namespace alone is made meanwhile.
      const [, unusable] = await Promise.all([
        this.accept(command, processes, context),
        this.sessions.prepare(namespace, { session, user }, processes, run.signal),
      ]);
      if (unusable) this.failAll(processes, unusable, run);
      else {
        const server = processes.some((p) =>
          isConnectionServer(p, this.settings.connectionServerName),
        );
        // The infrastructure read above is the session's still, unless its namespace was
        // Terminating and has been replaced since: then it is read again.
        const listed = namespace?.metadata?.deletionTimestamp ? undefined : found.infrastructure;
        if (!server)
          run.context.connectionServer = await this.booter.sessionConnectionServer(session, listed);
        if (command.allOrNothing && this.groups)
          await this.groups.boot(processes, {
            context: run.context,
            signal: run.signal,
            settled: (process, outcome) => this.settled(process, outcome, run),
          });
        else await this.bootInOrder(processes, run);
      }
    } finally {
      await run.facts.flushed();
    }
    return [];
  }

  private async accept(
    { session, user }: BootCommand,
    processes: PlannedProcess[],
    { commandId, subject }: CommandContext,
  ): Promise<void> {
    const accepted = processes.map((p) => ({
      uuid: p.uuid,
      name: p.spec.name,
      treeId: p.spec.treeId,
      role: p.role,
    }));
    await this.facts.send(
      this.facts.bootAccepted(subject, { commandId, session, user, processes: accepted }),
    );
  }

  private startRun({ session, user }: BootCommand, context: CommandContext): BootRun {
    const facts = this.facts.batcher({
      maxBatch: FACT_BATCH,
      // A failed heartbeat means a rebalance: the transport notices it; nothing to do here.
      onSent: () => void context.heartbeat().catch(() => undefined),
    });
    const bootContext = { session, user, commandId: context.commandId };
    return { context: bootContext, subject: context.subject, signal: context.signal, facts };
  }

  /**
   * drunc's order (boot-order.ts): the connection server and the root controller one at a time,
   * each waited for until Ready (the others connect to them), the other infrastructure
   * applications between them; only then the rest, concurrently. A connection server or root
   * controller that fails fails everything after it without creating a pod.
   */
  private async bootInOrder(processes: PlannedProcess[], run: BootRun): Promise<void> {
    const stages = inBootStages(processes, this.settings.connectionServerName);
    for (const [i, stage] of stages.entries()) {
      const { failureCode } = stage;
      if (failureCode === undefined) {
        await mapConcurrent(stage.processes, this.settings.bootConcurrency, (p) =>
          this.bootOne(p, run),
        );
        continue;
      }
      for (const [j, process] of stage.processes.entries()) {
        const outcome = await this.bootOne(process, run);
        if (outcome.ok) continue;
        const later = new Set(stages.slice(i + 1).flatMap((s) => s.processes));
        const why = `not booted: the ${stage.what} ${process.spec.name} failed (${outcome.code}: ${outcome.message})`;
        const rest = processes.filter((p) => later.has(p));
        this.failAll(
          [...stage.processes.slice(j + 1), ...rest],
          bootFailure(failureCode, why),
          run,
        );
        return;
      }
    }
  }

  /** Unexpected API failures (after retries) fail the process with the API server's reason. */
  private async bootOne(process: PlannedProcess, run: BootRun): Promise<BootOutcome> {
    const waitReady = waitsForReady(process, this.settings.connectionServerName);
    let outcome: BootOutcome;
    try {
      outcome = await this.booter.boot(process, run.context, { waitReady, signal: run.signal });
    } catch (error) {
      if (error instanceof StopRequested) throw error;
      const { reason, message } = failureOf(error);
      outcome = bootFailure(reason || 'BootFailed', message);
    }
    // drunc maps `localhost` to the connection server in every pod booted after it.
    if (outcome.ok && outcome.connectionServer)
      run.context.connectionServer = outcome.connectionServer;
    run.facts.add(this.facts.bootOutcome(run.subject, process, run.context, outcome));
    return outcome;
  }

  /** A process of a pod group settled: counted as the booter counts, its fact streamed. */
  private settled(process: PlannedProcess, outcome: BootOutcome, run: BootRun): void {
    this.booter.count(outcome);
    run.facts.add(this.facts.bootOutcome(run.subject, process, run.context, outcome));
  }

  private failAll(processes: readonly PlannedProcess[], failure: BootFailure, run: BootRun): void {
    for (const p of processes)
      run.facts.add(this.facts.bootFailed(run.subject, p, run.context, failure));
  }
}
