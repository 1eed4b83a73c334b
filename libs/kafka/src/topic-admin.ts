import type { Admin } from 'kafkajs';
import type { TopicSpec } from '@kpm/contracts';
import { createTopicsWithLeaders } from './topic-leaders';
import type { KafkaClient } from './kafka-client';
import { withAdmin } from './shared-admin';

export interface TopicCheck {
  name: string;
  created: boolean;
  /** Set when an existing topic differs in a way kpm cannot fix by itself. */
  problem?: string;
}

/** Creates kpm's topics idempotently at service start (and for `kpm topics create`). */
export class TopicAdmin {
  constructor(private readonly kafka: KafkaClient) {}

  ensure(specs: readonly TopicSpec[]): Promise<TopicCheck[]> {
    return withAdmin(this.kafka, async (admin) => {
      const existing = new Set(await admin.listTopics());
      const missing = specs.filter((spec) => !existing.has(spec.topic));
      if (missing.length > 0) await createTolerantly(admin, missing);
      const present = specs.filter((spec) => existing.has(spec.topic));
      const problems = await partitionProblems(admin, present);
      return specs.map((spec) => ({
        name: spec.topic,
        created: missing.includes(spec),
        problem: problems.get(spec.topic),
      }));
    });
  }
}

async function createTolerantly(admin: Admin, specs: readonly TopicSpec[]): Promise<void> {
  try {
    await createTopicsWithLeaders(
      admin,
      specs.map(({ topic, numPartitions, configEntries }) => ({
        topic,
        numPartitions,
        configEntries,
      })),
    );
  } catch (error) {
    // Another service may have created them between our list and create: that is success.
    const nested = (error as { errors?: Array<{ type?: string }> }).errors ?? [];
    const onlyExists = nested.length > 0 && nested.every((e) => e.type === 'TOPIC_ALREADY_EXISTS');
    if (!onlyExists && (error as { type?: string }).type !== 'TOPIC_ALREADY_EXISTS') throw error;
  }
}

async function partitionProblems(
  admin: Admin,
  specs: readonly TopicSpec[],
): Promise<Map<string, string>> {
  const problems = new Map<string, string>();
  if (specs.length === 0) return problems;
  const metadata = await admin.fetchTopicMetadata({ topics: specs.map((spec) => spec.topic) });
  for (const topic of metadata.topics) {
    const spec = specs.find((candidate) => candidate.topic === topic.name);
    if (spec && topic.partitions.length !== spec.numPartitions) {
      problems.set(
        topic.name,
        `has ${topic.partitions.length} partitions, kpm expects ${spec.numPartitions} (session keys would land on different partition numbers)`,
      );
    }
  }
  return problems;
}
