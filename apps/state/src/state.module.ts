import { type DynamicModule, Module } from '@nestjs/common';
import { topicName } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import { consumerGroupId, type KafkaClient } from '@kpm/kafka';
import { KAFKA_CLIENT, ServiceKitModule, type ServiceConsumer } from '@kpm/service-kit';
import { DashboardApiController } from './dashboard/dashboard-api.controller';
import { DashboardController } from './dashboard/dashboard.controller';
import { DashboardFeed } from './dashboard/dashboard-feed';
import { FeedPublisher } from './feeds/feed-publisher';
import { EventsController } from './http/events.controller';
import { ProcessesController } from './http/processes.controller';
import { StreamLimit, StreamSlots } from './http/stream-limit';
import { StateMetrics } from './kafka/state-metrics';
import { StateCoordinator, StateKafka, stateKafka } from './kafka/state-coordinator';
import { StateTransport } from './kafka/state-transport';
import { StateView } from './view/state-view';

@Module({})
export class StateModule {
  static register(settings: KpmSettings): DynamicModule {
    return {
      module: StateModule,
      imports: [ServiceKitModule.forRoot(settings)],
      controllers: [
        ProcessesController,
        EventsController,
        DashboardController,
        DashboardApiController,
      ],
      providers: [
        StateView,
        StateMetrics,
        {
          provide: StateKafka,
          useFactory: (kafka: KafkaClient) => stateKafka(kafka),
          inject: [KAFKA_CLIENT],
        },
        StateCoordinator,
        FeedPublisher,
        DashboardFeed,
        StreamSlots,
        StreamLimit,
      ],
    };
  }

  /**
   * State reads commands, the boot-worker's facts, the watcher's terminations and the dead
   * letters (of commands given up on), all keyed by session, with exactly-once transactions of its own (see README.md).
   */
  static consumer(settings: KpmSettings): ServiceConsumer {
    const prefix = settings.kafka.topicPrefix;
    const groupId = consumerGroupId(prefix, 'state');
    const topics = [
      topicName('commands', prefix),
      topicName('process-events', prefix),
      topicName('terminations', prefix),
      // Valid commands the boot-worker gave up on, to complete them as failed.
      topicName('dead-letters', prefix),
    ];
    return {
      groupId,
      topics,
      transport: (app, readiness) =>
        new StateTransport(
          app.get<KafkaClient>(KAFKA_CLIENT),
          settings,
          groupId,
          topics,
          app.get(StateCoordinator),
          readiness,
          app.get(StateMetrics),
        ),
    };
  }
}
