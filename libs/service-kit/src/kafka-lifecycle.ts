import { errorText, logEvent } from '@kpm/common';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { eventId } from '@kpm/contracts';
import { KpmSettings } from '@kpm/config';
import { EventProducer, kpmTopicSpecs, TopicAdmin, type KafkaClient } from '@kpm/kafka';
import { Broadcaster } from './broadcaster';
import { KAFKA_CLIENT } from './tokens';

/**
 * Creates kpm's topics idempotently and connects the producer before any handler runs; the
 * producer disconnects last, after the consumer finished its in-flight record.
 */
@Injectable()
export class KafkaLifecycle
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger(KafkaLifecycle.name);
  /** Distinguishes this start from earlier ones of the same instance name in broadcast ids. */
  private readonly startedAt = Date.now();

  constructor(
    @Inject(KAFKA_CLIENT) private readonly kafka: KafkaClient,
    @Inject(EventProducer) private readonly producer: EventProducer,
    @Inject(KpmSettings)
    private readonly settings: Pick<KpmSettings, 'service' | 'instance' | 'kafka'>,
    @Inject(Broadcaster) private readonly broadcaster: Broadcaster,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Drifted topics throw here: the service refuses to start on them (TopicDriftError).
    const checks = await new TopicAdmin(this.kafka).ensure(kpmTopicSpecs(this.settings.kafka));
    for (const check of checks) {
      if (check.created) this.logger.log(logEvent('topic.created', { topic: check.name }));
    }
    await this.producer.connect();
  }

  /** drunc's SERVER_READY, once the service consumes and serves. */
  async announceReady(url: string): Promise<void> {
    const { service, instance } = this.settings;
    await this.broadcaster.broadcast({
      id: eventId('server-ready', service, instance, String(this.startedAt)),
      broadcastType: 'SERVER_READY',
      text: `${service} ${instance} ready at ${url}`,
    });
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    const { service, instance } = this.settings;
    await this.broadcaster
      .broadcast({
        id: eventId('server-shutdown', service, instance, String(this.startedAt)),
        broadcastType: 'SERVER_SHUTDOWN',
        text: `${service} ${instance} shutting down${signal ? ` on ${signal}` : ''}`,
      })
      .catch((error: unknown) =>
        this.logger.warn(
          logEvent('broadcast.failed', {
            broadcastType: 'SERVER_SHUTDOWN',
            error: errorText(error),
          }),
        ),
      );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.producer.disconnect();
  }
}
