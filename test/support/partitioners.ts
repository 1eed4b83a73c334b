import { crc32 } from 'node:zlib';
import { Partitioners } from 'kafkajs';

/**
 * Where a keyed record lands, as each client family computes it. kafkajs (kpm's services and
 * @kpm/client) hashes the key with murmur2, as Java's client does; librdkafka (confluent-kafka in
 * Python, C, C++, Go, .NET) uses `consistent_random` by default: CRC32 of the key.
 */
export function murmur2Partition(key: string, partitionCount: number): number {
  const partitionMetadata = Array.from({ length: partitionCount }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [0],
    isr: [0],
  }));
  return Partitioners.DefaultPartitioner()({
    topic: 'any',
    partitionMetadata,
    message: { key, value: null },
  });
}

export function crc32Partition(key: string, partitionCount: number): number {
  return crc32(Buffer.from(key, 'utf8')) % partitionCount;
}

/**
 * `count` sessions named by `name(i)` (i = 0, 1, …) for which the two partitioners agree (or,
 * with `agree: false`, disagree) for `partitionCount` partitions.
 */
export function sessionsWherePartitioners(
  agree: boolean,
  count: number,
  partitionCount: number,
  name: (i: number) => string,
): string[] {
  const found: string[] = [];
  for (let i = 0; found.length < count; i++) {
    if (i > 10_000) throw new Error(`no ${count} sessions found where partitioners agree=${agree}`);
    const session = name(i);
    const same =
      crc32Partition(session, partitionCount) === murmur2Partition(session, partitionCount);
    if (same === agree) found.push(session);
  }
  return found;
}
