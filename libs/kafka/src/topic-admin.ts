import { ConfigResourceTypes, type Admin } from 'kafkajs';
import type { TopicSpec } from '@kpm/contracts';
import { createTopicsWithLeaders } from './topic-leaders';
import type { KafkaClient } from './kafka-client';
import { withAdmin } from './shared-admin';
import { TopicDriftError, topicDrift, type ObservedTopic } from './topic-drift';

export interface TopicCheck {
  name: string;
  created: boolean;
}

/**
 * Creates kpm's topics idempotently at service start (and for `kpm topics create`); an existing
 * topic that differs from its spec fails with {@link TopicDriftError} naming every difference.
 */
export class TopicAdmin {
  constructor(private readonly kafka: KafkaClient) {}

  ensure(specs: readonly TopicSpec[]): Promise<TopicCheck[]> {
    return withAdmin(this.kafka, async (admin) => {
      const existing = new Set(await admin.listTopics());
      const missing = specs.filter((spec) => !existing.has(spec.topic));
      if (missing.length > 0) await createTolerantly(admin, missing);
      const present = specs.filter((spec) => existing.has(spec.topic));
      const observed = await observeTopics(admin, present);
      const drifts = present.flatMap((spec) => topicDrift(spec, observed.get(spec.topic)!));
      if (drifts.length > 0) throw new TopicDriftError(drifts);
      return specs.map((spec) => ({ name: spec.topic, created: missing.includes(spec) }));
    });
  }
}

async function createTolerantly(admin: Admin, specs: readonly TopicSpec[]): Promise<void> {
  try {
    await createTopicsWithLeaders(
      admin,
      specs.map(({ topic, numPartitions, replicationFactor, configEntries }) => ({
        topic,
        numPartitions,
        replicationFactor,
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

/** Each topic's replica counts (metadata) and the effective values of the configs kpm sets. */
async function observeTopics(
  admin: Admin,
  specs: readonly TopicSpec[],
): Promise<Map<string, ObservedTopic>> {
  const observed = new Map<string, ObservedTopic>();
  if (specs.length === 0) return observed;
  const metadata = await admin.fetchTopicMetadata({ topics: specs.map((spec) => spec.topic) });
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: specs.map((spec) => ({
      type: ConfigResourceTypes.TOPIC,
      name: spec.topic,
      configNames: spec.configEntries.map((entry) => entry.name),
    })),
  });
  for (const spec of specs) {
    const partitions = metadata.topics.find((t) => t.name === spec.topic)?.partitions ?? [];
    const configs = described.resources.find((r) => r.resourceName === spec.topic);
    observed.set(spec.topic, {
      name: spec.topic,
      replicasPerPartition: [...partitions]
        .sort((a, b) => a.partitionId - b.partitionId)
        .map((p) => p.replicas.length),
      configs: Object.fromEntries(
        (configs?.configEntries ?? []).map((entry) => [entry.configName, entry.configValue]),
      ),
    });
  }
  return observed;
}
