import type { CommittedOffsets } from './partition-state-handler';
import type { KafkaClient } from './kafka-client';

/** The group's committed positions of `partitions` in every topic; never committed reads as 0. */
export async function fetchCommittedOffsets(
  kafka: KafkaClient,
  groupId: string,
  topics: readonly string[],
  partitions: readonly number[],
): Promise<CommittedOffsets> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const fetched = await admin.fetchOffsets({ groupId, topics: [...topics] });
    return new Map(
      fetched.map(({ topic, partitions: list }) => [
        topic,
        new Map(
          list
            .filter((entry) => partitions.includes(entry.partition))
            .map((entry) => [entry.partition, entry.offset === '-1' ? '0' : entry.offset]),
        ),
      ]),
    );
  } finally {
    await admin.disconnect();
  }
}
