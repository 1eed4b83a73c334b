import { type DynamicModule, Module } from '@nestjs/common';
import type { KpmSettings } from '@kpm/config';
import { ServiceKitModule } from '@kpm/service-kit';
import { WatcherService } from './watcher.service';

/** The watcher reads pods, not Kafka: its only Kafka traffic is what it publishes. */
@Module({})
export class WatcherModule {
  static register(settings: KpmSettings): DynamicModule {
    return {
      module: WatcherModule,
      imports: [ServiceKitModule.forRoot(settings)],
      providers: [WatcherService],
    };
  }
}
