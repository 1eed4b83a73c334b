/**
 * Where drunc's shells follow kpm's broadcasts (docs/design.md §5.7): describe's `broadcast`,
 * `Any(KafkaBroadcastHandlerConfiguration{1 kafka_address, 2 topic})`. drunc's shell, given
 * one, starts a Kafka consumer on that address as it starts (kafka-python's KafkaConsumer, which
 * raises when no broker answers): an address the shell cannot reach would break it. So it is
 * offered only when an operator names the address shells reach (`feeds.kafkaAddress`) and the
 * broadcast feed is on; otherwise describe offers none, as before.
 */
import * as protobuf from 'protobufjs';
import { feedTopicNames } from '@kpm/contracts';
import type { FeedsConfig } from '@kpm/config';

export const KAFKA_BROADCAST_CONFIGURATION =
  'type.googleapis.com/dunedaq.druncschema.KafkaBroadcastHandlerConfiguration';

export function broadcastListing(
  feeds: FeedsConfig,
): { type_url: string; value: Uint8Array } | undefined {
  if (!feeds.broadcast.enabled || !feeds.kafkaAddress) return undefined;
  const value = protobuf.Writer.create()
    .uint32((1 << 3) | 2) // kafka_address = 1, length-delimited
    .string(feeds.kafkaAddress)
    .uint32((2 << 3) | 2) // topic = 2
    .string(feedTopicNames(feeds).broadcast)
    .finish();
  return { type_url: KAFKA_BROADCAST_CONFIGURATION, value };
}
