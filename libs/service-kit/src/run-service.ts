import { logEvent } from '@kpm/common';
import { type DynamicModule, type INestApplication, Logger } from '@nestjs/common';
import type { CustomTransportStrategy } from '@nestjs/microservices';
import { NestFactory } from '@nestjs/core';
import { InvalidSettingsError, type KpmSettings, loadSettings } from '@kpm/config';
import { KafkaLifecycle } from './kafka-lifecycle';
import { serviceLogger } from './kpm-logger';
import { Readiness } from './readiness';

export interface ServiceConsumer {
  /** Consumer group; one group per service so each service sees every record. */
  groupId: string;
  topics: readonly string[];
  /**
   * The service's Nest transport (the at-least-once CloudEventServer, or the state service's
   * transactions); it reports the `kafka-consumer` readiness part itself.
   */
  transport: (app: INestApplication, readiness: Readiness) => CustomTransportStrategy;
}

/** Reads settings or stops the process with a message naming the bad setting (exit code 78, EX_CONFIG). */
export function settingsOrExit(service: string, defaults: object = {}): KpmSettings {
  try {
    return loadSettings(service, process.env, defaults);
  } catch (error) {
    if (!(error instanceof InvalidSettingsError)) throw error;
    console.error(`kpm ${service}: ${error.message}`);
    process.exit(78);
  }
}

/**
 * Starts a service: HTTP (health, metrics, APIs), the Kafka transport for its handlers, and
 * shutdown hooks so SIGTERM finishes in-flight work. Returns the app (tests use port 0).
 */
export async function runService(
  module: DynamicModule,
  settings: KpmSettings,
  consumer?: ServiceConsumer,
): Promise<INestApplication> {
  const logger = new Logger(settings.service);
  const app = await NestFactory.create(module, {
    bufferLogs: false,
    logger: serviceLogger(settings),
  });
  app.enableShutdownHooks();
  if (consumer) {
    const readiness = app.get(Readiness);
    readiness.expect('kafka-consumer');
    const strategy = consumer.transport(app, readiness);
    app.connectMicroservice({ strategy }, { inheritAppConfig: true });
  }
  await app.init();
  await app.startAllMicroservices();
  await app.listen(settings.http.port, settings.http.host);
  const url = await app.getUrl();
  await app.get(KafkaLifecycle).announceReady(url);
  logger.log(logEvent('service.listening', { http: url }));
  return app;
}
