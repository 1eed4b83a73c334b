import { type DynamicModule, Module } from '@nestjs/common';
import { topicName } from '@kpm/contracts';
import type { KpmSettings } from '@kpm/config';
import { ServiceKitModule, type ServiceConsumer } from '@kpm/service-kit';
import { StateCommandsController } from './commands.controller';

@Module({})
export class StateModule {
  static register(settings: KpmSettings): DynamicModule {
    return {
      module: StateModule,
      imports: [ServiceKitModule.forRoot(settings)],
      controllers: [StateCommandsController],
    };
  }

  /** State reads commands, the boot-worker's facts and the watcher's terminations, all keyed by session. */
  static consumer(settings: KpmSettings): ServiceConsumer {
    const prefix = settings.kafka.topicPrefix;
    return {
      groupId: `${prefix}-state`,
      topics: [
        topicName('commands', prefix),
        topicName('process-events', prefix),
        topicName('terminations', prefix),
      ],
    };
  }
}
