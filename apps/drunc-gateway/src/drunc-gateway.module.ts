/**
 * The drunc gateway: Nest's gRPC transport serving drunc's ProcessManager over `@kpm/client`,
 * plus the service kit's health, readiness, metrics and broadcasts like every kpm service.
 */
import {
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { connectProcessManager, type ProcessManagerClient } from '@kpm/client';
import { KpmSettings } from '@kpm/config';
import { Broadcaster, ServiceKitModule } from '@kpm/service-kit';
import { broadcastListing } from './broadcast-listing';
import { CommandRunner } from './calls/command-runner';
import { DruncProcessManager } from './drunc-process-manager';
import { ProcessManagerController } from './process-manager.controller';
import { NestServerLog } from './server-messages/nest-server-log';
import { BroadcastAnnouncer } from './server-messages/server-announcer';
import { DruncServerMessages } from './server-messages/server-messages';
import { StateApi } from './state-api';

export const KPM_CLIENT = Symbol('KPM_CLIENT');

/** The client's Kafka consumers and producer end with the app. */
@Injectable()
class ClientLifecycle implements OnApplicationShutdown {
  constructor(@Inject(KPM_CLIENT) private readonly client: ProcessManagerClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}

@Module({})
export class DruncGatewayModule {
  static register(settings: KpmSettings, endpoint: string): DynamicModule {
    const { gateway, kafka } = settings;
    return {
      module: DruncGatewayModule,
      imports: [ServiceKitModule.forRoot(settings)],
      controllers: [ProcessManagerController],
      providers: [
        {
          provide: KPM_CLIENT,
          useFactory: () =>
            connectProcessManager({
              brokers: kafka.brokers,
              topicPrefix: kafka.topicPrefix,
              clientId: `${kafka.topicPrefix}-drunc-gateway`,
              source: `/kpm/drunc-gateway/${settings.instance}`,
              ssl: kafka.ssl,
              sasl: kafka.sasl,
            }),
        },
        ClientLifecycle,
        {
          provide: DruncProcessManager,
          useFactory: (client: ProcessManagerClient) =>
            new DruncProcessManager(
              client,
              new CommandRunner(new StateApi(gateway.stateUrl, gateway.stateTokenFile), {
                retryWindowMs: gateway.retryWindowSeconds * 1000,
                viewPollMs: 1_000,
              }),
              {
                name: gateway.name,
                endpoint,
                broadcast: broadcastListing(settings.feeds),
                defaultImage: gateway.defaultImage,
              },
            ),
          inject: [KPM_CLIENT],
        },
        {
          provide: DruncServerMessages,
          useFactory: (broadcaster: Broadcaster) => {
            const log = new NestServerLog();
            return new DruncServerMessages(
              gateway.name,
              log,
              new BroadcastAnnouncer(broadcaster, log),
            );
          },
          inject: [Broadcaster],
        },
      ],
    };
  }
}
