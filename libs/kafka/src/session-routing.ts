/**
 * Which partition a session's records belong on (docs/design.md §2, §9.6): the one kafkajs'
 * default partitioner (murmur2, as Kafka's Java client) chooses for the session key on the
 * topic's partition count. Facts, terminations and completions are keyed by session with that
 * partitioner, so a command written by another client (librdkafka hashes with CRC32 by default)
 * may arrive elsewhere: it is then **misrouted**. The state service forwards a misrouted command
 * to its session's partition; every service acts only on commands on their session's partition.
 */
import { Partitioners, type PartitionMetadata } from 'kafkajs';
import type { InboundRecord } from './inbound-record';

/** Header naming where a forwarded command first arrived: `<partition>/<offset>`. */
export const FORWARDED_FROM_HEADER = 'kpm-forwarded-from';

const murmur2Partitioner = Partitioners.DefaultPartitioner();
const metadataByCount = new Map<number, PartitionMetadata[]>();

/** The partition kafkajs (and Kafka's Java client) give `key` on a topic of `partitions`. */
export function sessionPartition(key: string, partitions: number): number {
  return murmur2Partitioner({
    topic: 'kpm.session-routing',
    partitionMetadata: metadataOf(partitions),
    message: { key, value: null },
  });
}

function metadataOf(partitions: number): PartitionMetadata[] {
  if (!Number.isInteger(partitions) || partitions < 1) {
    throw new Error(`a topic has at least one partition, not ${partitions}`);
  }
  let metadata = metadataByCount.get(partitions);
  if (!metadata) {
    metadata = Array.from({ length: partitions }, (_, partitionId) => ({
      partitionErrorCode: 0,
      partitionId,
      leader: 0,
      replicas: [0],
      isr: [0],
    }));
    metadataByCount.set(partitions, metadata);
  }
  return metadata;
}

/** Where a command record must be acted on. */
type CommandRoute =
  { routed: true } | { routed: false; partition: number; key: string; reason: string };

/**
 * A command is routed when it sits on its session's partition: the one its record key hashes
 * to. A record without a key is acted on where it is — the contract refuses it there at path
 * `key` (the key must equal the subject, docs/design.md §3.1) — so routing never parses a value.
 */
export function commandRoute(record: InboundRecord, partitions: number): CommandRoute {
  const key = record.key;
  if (key === null) return { routed: true };
  const partition = sessionPartition(key, partitions);
  if (partition === record.partition) return { routed: true };
  return {
    routed: false,
    partition,
    key,
    reason: `session key ${JSON.stringify(key)} belongs on partition ${partition}, not ${record.partition}`,
  };
}

/** The misrouted command, unchanged (value, headers, id), on its session's partition. */
export function forwardedCommand(
  record: InboundRecord,
  route: Extract<CommandRoute, { routed: false }>,
): {
  topic: string;
  partition: number;
  key: string;
  value: Buffer | null;
  headers: Record<string, string>;
} {
  return {
    topic: record.topic,
    partition: route.partition,
    key: route.key,
    value: record.value,
    headers: {
      ...record.headers,
      [FORWARDED_FROM_HEADER]: `${record.partition}/${record.offset}`,
    },
  };
}
