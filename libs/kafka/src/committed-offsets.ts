import type { CommittedOffsets } from './partition-state-handler';
import type { KafkaClient } from './kafka-client';
import { withAdmin } from './shared-admin';

/** The group's committed positions of `partitions` in every topic; never committed reads as 0. */
export function fetchCommittedOffsets(
  kafka: KafkaClient,
  groupId: string,
  topics: readonly string[],
  partitions: readonly number[],
): Promise<CommittedOffsets> {
  return withAdmin(kafka, async (admin) => {
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
  });
}
