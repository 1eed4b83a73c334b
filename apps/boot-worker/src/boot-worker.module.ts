import { type DynamicModule, Module } from '@nestjs/common';
import { topicName } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import { EventProducer } from '@kpm/kafka';
import { ServiceKitModule, type ServiceConsumer } from '@kpm/service-kit';
import { Registry } from 'prom-client';
import { BootWorkerMetrics } from './boot-worker-metrics';
import { createCommandRouter } from './boot-worker.factory';
import { CommandRouter } from './commands/command-router';
import { CommandsController } from './commands.controller';

@Module({})
export class BootWorkerModule {
  static register(settings: KpmSettings): DynamicModule {
    return {
      module: BootWorkerModule,
      imports: [ServiceKitModule.forRoot(settings)],
      controllers: [CommandsController],
      providers: [
        {
          provide: CommandRouter,
          useFactory: (producer: EventProducer, registry: Registry) =>
            createCommandRouter(settings, producer, new BootWorkerMetrics(registry)),
          inject: [EventProducer, Registry],
        },
      ],
    };
  }

  /** The boot-worker's consumer group reads every command. */
  static consumer(settings: KpmSettings): ServiceConsumer {
    return {
      groupId: `${settings.kafka.topicPrefix}-boot-worker`,
      topics: [topicName('commands', settings.kafka.topicPrefix)],
    };
  }
}
