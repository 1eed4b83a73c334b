import { type DynamicModule, Logger, Module } from '@nestjs/common';
import { systemClock } from '@kpm/common';
import { topicName } from '@kpm/contracts';
import { druncConfigurationEvents, type KpmSettings } from '@kpm/config';
import {
  commandRoute,
  consumerGroupId,
  EventProducer,
  KafkaDeadLetterSink,
  type KafkaClient,
} from '@kpm/kafka';
import { CloudEventServer } from '@kpm/kafka/nest';
import { createKubeApis } from '@kpm/kube';
import { KAFKA_CLIENT, ServiceKitModule, type ServiceConsumer } from '@kpm/service-kit';
import { Registry } from 'prom-client';
import { BootWorkerMetrics } from './boot-worker-metrics';
import { BootWorkerHandlers, createHandlers } from './boot-worker.factory';
import { socketReachability } from './boot/reachability';
import { KubeCluster } from './cluster/kube-cluster';
import { CommandsController } from './commands.controller';
import type { FactSink } from './facts/fact-sink';
import { logManagedSessions } from './managed-sessions';

@Module({})
export class BootWorkerModule {
  static register(settings: KpmSettings): DynamicModule {
    return {
      module: BootWorkerModule,
      imports: [ServiceKitModule.forRoot(settings)],
      controllers: [CommandsController],
      providers: [
        {
          provide: BootWorkerMetrics,
          useFactory: (registry: Registry) => new BootWorkerMetrics(registry),
          inject: [Registry],
        },
        {
          provide: BootWorkerHandlers,
          useFactory: (producer: EventProducer, metrics: BootWorkerMetrics) => {
            const cluster = new KubeCluster(createKubeApis(settings.kubeconfig), settings);
            const logger = new Logger('BootWorker');
            void logManagedSessions(cluster.namespaces, logger);
            // drunc's loader warns of what it discards; kpm says what each drunc key does.
            for (const event of druncConfigurationEvents()) logger.log(event);
            const topic = topicName('process-events', settings.kafka.topicPrefix);
            const sink: FactSink = { send: (records) => producer.send(topic, records) };
            return createHandlers(settings, {
              cluster,
              sink,
              clock: systemClock,
              reach: socketReachability,
              metrics,
            });
          },
          inject: [EventProducer, BootWorkerMetrics],
        },
      ],
    };
  }

  /**
   * The boot-worker's consumer group reads every command, one consumer per partition. Within a
   * partition the sessions run concurrently (up to `commands.maxInFlight` commands), one
   * session's commands in order: a long command (a large boot, a terminate waiting out grace
   * periods) holds up its own session only (docs/design.md §9.2). A command on another partition
   * than its session's is skipped: the state service forwards it there (docs/design.md §9.6).
   */
  static consumer(settings: KpmSettings): ServiceConsumer {
    const groupId = consumerGroupId(settings.kafka.topicPrefix, 'boot-worker');
    const topics = [topicName('commands', settings.kafka.topicPrefix)];
    return {
      groupId,
      topics,
      transport: (app, readiness) =>
        new CloudEventServer({
          kafka: app.get<KafkaClient>(KAFKA_CLIENT),
          groupId,
          topics,
          deadLetters: app.get(KafkaDeadLetterSink),
          maxRecordBytes: settings.kafka.maxRecordBytes,
          consumers: settings.kafka.partitions,
          runner: { maxInFlight: settings.commands.maxInFlight },
          onHealth: ({ ready, detail }) => readiness.set('kafka-consumer', ready, detail),
          skip: (record) => {
            const route = commandRoute(record, settings.kafka.partitions);
            return route.routed ? undefined : `misrouted: ${route.reason}`;
          },
        }),
    };
  }
}
