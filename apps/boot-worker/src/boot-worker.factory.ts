/**
 * The boot-worker's composition: its rules, steps and handlers over three things from outside —
 * the cluster (Cluster port), where facts go (FactSink) and the clock. The module passes the real
 * ones; the handlers' table tests pass a FakeCluster, a list and a VirtualClock.
 */
import type { Clock } from '@kpm/common';
import { eventSource } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import type { BootWorkerMetrics } from './boot-worker-metrics';
import { BootChecks } from './boot/boot-checks';
import { BootHandler } from './boot/boot-handler';
import { bootPolicyOf } from './boot/boot-validator';
import { PodBuilder } from './boot/pod-builder';
import { PodGroupBoot } from './boot/pod-group-boot';
import { ProcessBooter } from './boot/process-booter';
import { SessionNamespace } from './boot/session-namespace';
import type { Reachability } from './boot/reachability';
import type { Cluster } from './cluster/cluster';
import { EndingRule } from './cluster/pod-state';
import type { FactSink } from './facts/fact-sink';
import { ProcessFacts } from './facts/process-facts';
import { KillHandler } from './kill/kill-handler';
import { Killer } from './kill/killer';
import { StageExecutor } from './kill/stage-executor';
import { TerminateHandler } from './kill/terminate-handler';
import { LogsHandler } from './logs/logs-handler';
import { RestartHandler } from './restart/restart-handler';

/**
 * One handler per command type the boot-worker acts on (`ps` and `flush` are the state's). An
 * abstract class only so that Nest can inject it by its type.
 */
export abstract class BootWorkerHandlers {
  abstract readonly boot: BootHandler;
  abstract readonly kill: KillHandler;
  abstract readonly terminate: TerminateHandler;
  abstract readonly restart: RestartHandler;
  abstract readonly logs: LogsHandler;
}

interface BootWorkerOutside {
  cluster: Cluster;
  sink: FactSink;
  clock: Clock;
  /** The boot-worker's own connections to the processes (drunc's check, reachability.ts). */
  reach?: Reachability;
  metrics?: BootWorkerMetrics;
}

export function createHandlers(
  settings: KpmSettings,
  { cluster, sink, clock, reach, metrics }: BootWorkerOutside,
): BootWorkerHandlers {
  const pm = settings.podManagement;
  const operatorUsers = settings.security.operatorUsers;
  const builder = new PodBuilder(cluster.labels, settings);
  const facts = new ProcessFacts(
    eventSource(settings.service, settings.instance),
    sink,
    (p, user) => builder.env(p, user),
  );
  const endings = new EndingRule(settings, clock);
  const checks = new BootChecks(cluster, endings, bootPolicyOf(settings, cluster.labels), pm);
  const booter = new ProcessBooter(cluster, builder, endings, pm, clock, reach, metrics);
  const stages = new StageExecutor(cluster.pods, endings, clock, pm.bootConcurrency);
  const killer = new Killer(stages, facts, pm, clock, metrics);
  const sessions = new SessionNamespace(cluster, builder, pm.namespaceCleanupTimeoutSeconds);
  const groups = pm.kueue && new PodGroupBoot(cluster, booter, { ...pm, kueue: pm.kueue });
  return {
    boot: new BootHandler(checks, sessions, booter, facts, pm, groups),
    kill: new KillHandler(cluster, killer, operatorUsers),
    terminate: new TerminateHandler(cluster, killer, operatorUsers),
    restart: new RestartHandler(cluster, checks, killer, booter, facts, { ...pm, operatorUsers }),
    logs: new LogsHandler(cluster, facts, { logsMaxBytes: pm.logsMaxBytes, operatorUsers }),
  };
}
