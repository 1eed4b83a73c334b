import { type DynamicModule, Module } from '@nestjs/common';
import { systemClock } from '@kpm/common';
import type { KpmSettings } from '@kpm/config';
import { EventProducer, type KafkaClient } from '@kpm/kafka';
import {
  Broadcaster,
  KAFKA_CLIENT,
  Readiness,
  ServiceKitModule,
  type ServiceConsumer,
} from '@kpm/service-kit';
import { Registry } from 'prom-client';
import { DashboardApiController } from './dashboard/dashboard-api.controller';
import { DashboardController } from './dashboard/dashboard.controller';
import { DashboardFeed } from './dashboard/dashboard-feed';
import { FeedPublisher } from './feeds/feed-publisher';
import { EventsController } from './http/events.controller';
import { ProcessesController } from './http/processes.controller';
import { StreamLimit, StreamSlots } from './http/stream-limit';
import { StateCoordinator } from './kafka/state-coordinator';
import { createState, StateParts, stateInputs } from './state.factory';
import { StateView } from './view/state-view';

/** A part of the composition as a provider of its own: controllers inject it, Nest calls its hooks. */
function part<T>(token: abstract new (...args: never[]) => T, pick: (parts: StateParts) => T) {
  return { provide: token, useFactory: pick, inject: [StateParts] };
}

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
        {
          provide: StateParts,
          useFactory: (
            kafka: KafkaClient,
            producer: EventProducer,
            broadcaster: Broadcaster,
            readiness: Readiness,
            registry: Registry,
          ) =>
            createState(settings, {
              kafka,
              producer,
              broadcaster,
              readiness,
              registry,
              clock: systemClock,
            }),
          inject: [KAFKA_CLIENT, EventProducer, Broadcaster, Readiness, Registry],
        },
        part(StateView, (s) => s.view),
        part(StateCoordinator, (s) => s.coordinator),
        part(FeedPublisher, (s) => s.feeds),
        part(DashboardFeed, (s) => s.dashboard),
        part(StreamSlots, (s) => s.streams),
        StreamLimit,
      ],
    };
  }

  /** The consumer's group and topics (state.factory.ts), run by the composed transport. */
  static consumer(settings: KpmSettings): ServiceConsumer {
    const { groupId, topics } = stateInputs(settings.kafka.topicPrefix);
    // The transport reports to the service kit's Readiness, the one runService passes too.
    return { groupId, topics, transport: (app) => app.get(StateParts).transport };
  }
}
