import { Logger } from '@nestjs/common';
import type { KpmSettings } from '@kpm/config';
import type { EventProducer } from '@kpm/kafka';
import { topicName } from '@kpm/contracts';
import { createKubeApis } from '@kpm/kube';
import { BootHandler } from './boot/boot-handler';
import { PodBuilder } from './boot/pod-builder';
import { ProcessBooter } from './boot/process-booter';
import type { BootWorkerMetrics } from './boot-worker-metrics';
import { Cluster } from './cluster';
import { CommandRouter } from './commands/command-router';
import type { FactSink } from './facts/fact-sink';
import { ProcessFacts } from './facts/process-facts';
import { KillHandler } from './kill/kill-handler';
import { Killer } from './kill/killer';
import { TerminateHandler } from './kill/terminate-handler';
import { LogsHandler } from './logs/logs-handler';
import { logManagedSessions } from './managed-sessions';
import { RestartHandler } from './restart/restart-handler';

/** Wires the boot-worker's plain classes: Kubernetes adapters, rules, handlers. */
export function createCommandRouter(
  settings: KpmSettings,
  producer: EventProducer,
  metrics?: BootWorkerMetrics,
): CommandRouter {
  const cluster = new Cluster(createKubeApis(settings.kubeconfig), settings);
  void logManagedSessions(cluster.namespaces, new Logger('BootWorker'));
  const topic = topicName('process-events', settings.kafka.topicPrefix);
  const sink: FactSink = { send: (records) => producer.send(topic, records) };
  const facts = new ProcessFacts(`/kpm/${settings.service}/${settings.instance}`);
  const builder = new PodBuilder(cluster.labels, settings);
  const booter = new ProcessBooter(cluster, builder, settings, metrics);
  const killer = new Killer(cluster, facts, sink, settings, metrics);
  return new CommandRouter(
    {
      boot: new BootHandler(cluster, booter, builder, facts, sink, settings),
      kill: new KillHandler(cluster, killer),
      terminate: new TerminateHandler(cluster, killer),
      restart: new RestartHandler(cluster, killer, booter, builder, facts, sink, settings),
      logs: new LogsHandler(cluster, facts, sink, settings),
    },
    metrics,
  );
}
