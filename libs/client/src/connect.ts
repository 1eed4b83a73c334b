/** The usual way to get a client: over Kafka, with the services' topic prefix. */
import type { ClientOptions } from './client-options';
import { KafkaTransport, type KafkaTransportOptions } from './kafka-transport';
import { ProcessManagerClient } from './process-manager-client';

export function connectProcessManager(
  options: ClientOptions & KafkaTransportOptions,
): ProcessManagerClient {
  const { brokers, clientId, retries, ssl, sasl, oauthBearerProvider, ...clientOptions } = options;
  return new ProcessManagerClient(
    new KafkaTransport({ brokers, clientId, retries, ssl, sasl, oauthBearerProvider }),
    clientOptions,
  );
}
