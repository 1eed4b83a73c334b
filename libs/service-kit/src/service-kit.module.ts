import { logEvent } from '@kpm/common';
import { type DynamicModule, Global, Logger, Module, type Provider } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Counter, Registry } from 'prom-client';
import { KpmSettings } from '@kpm/config';
import {
  createKafkaClient,
  describeKafkaSecurity,
  EventProducer,
  KafkaDeadLetterSink,
  type KafkaClient,
} from '@kpm/kafka';
import { Broadcaster } from './broadcaster';
import { TracingLifecycle } from './tracing-lifecycle';
import { HealthController } from './health.controller';
import { BearerAuthenticator, HttpAuthGuard } from './http-auth';
import { KafkaLifecycle } from './kafka-lifecycle';
import { createMetricsRegistry, MetricsController } from './metrics';
import { Readiness } from './readiness';
import { KAFKA_CLIENT } from './tokens';

/**
 * What every kpm service shares: settings, Kafka client, producer, dead letters, broadcasts,
 * health, readiness and metrics. Apps import it once with their settings.
 */
@Global()
@Module({})
export class ServiceKitModule {
  static forRoot(settings: KpmSettings): DynamicModule {
    const kafka = kafkaClientFor(settings);
    return {
      module: ServiceKitModule,
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: KpmSettings, useValue: settings },
        { provide: KAFKA_CLIENT, useValue: kafka },
        { provide: Registry, useValue: createMetricsRegistry(settings.service) },
        {
          provide: EventProducer,
          useFactory: (client: KafkaClient) => new EventProducer(client),
          inject: [KAFKA_CLIENT],
        },
        {
          provide: KafkaDeadLetterSink,
          useFactory: (producer: EventProducer, registry: Registry) =>
            new KafkaDeadLetterSink(
              producer,
              settings.kafka.topicPrefix,
              undefined,
              new Counter({
                name: 'kpm_dead_letter_failures_total',
                help: 'Records that could not even be dead-lettered, logged and skipped',
                registers: [registry],
              }),
            ),
          inject: [EventProducer, Registry],
        },
        Readiness,
        Broadcaster,
        KafkaLifecycle,
        TracingLifecycle,
        ...httpAuthProviders(settings),
      ],
      exports: [
        KpmSettings,
        KAFKA_CLIENT,
        Registry,
        EventProducer,
        KafkaDeadLetterSink,
        Readiness,
        Broadcaster,
      ],
    };
  }
}

function kafkaClientFor(settings: KpmSettings): KafkaClient {
  const kafka = createKafkaClient(
    { ...settings.kafka, clientId: `kpm-${settings.service}-${settings.instance}` },
    { logs: new Logger('kafkajs') },
  );
  new Logger('Kafka').log(
    logEvent('kafka.brokers', {
      brokers: settings.kafka.brokers,
      security: describeKafkaSecurity(settings.kafka),
    }),
  );
  return kafka;
}

/** The bearer-token gate on every route (http-auth.guard.ts); open when `http.auth` is absent. */
function httpAuthProviders(settings: KpmSettings): Provider[] {
  const auth = settings.http.auth;
  if (!auth) return [{ provide: APP_GUARD, useClass: HttpAuthGuard }];
  new Logger('HTTP').log(
    logEvent('http.auth', {
      tokenFile: Boolean(auth.tokenFile),
      jwtIssuer: auth.jwksUrl || auth.jwksFile ? auth.issuer : undefined,
    }),
  );
  return [
    { provide: BearerAuthenticator, useValue: BearerAuthenticator.fromSettings(auth) },
    { provide: APP_GUARD, useClass: HttpAuthGuard },
  ];
}
