import type { TopicSpec } from '@kpm/contracts';

/** What the broker reports for an existing topic: its partitions' replica counts and configs. */
export interface ObservedTopic {
  name: string;
  /** Replica count of each partition, in partition order. */
  replicasPerPartition: number[];
  /** The topic's effective configuration (explicit or broker default), by config name. */
  configs: Record<string, string | undefined>;
}

/** One setting of an existing topic that differs from what kpm would create. */
interface TopicDrift {
  topic: string;
  setting: string;
  expected: string;
  actual: string;
}

/**
 * Where an existing topic differs from its spec: partitions (session keys would land on other
 * partition numbers), replication factor, and every config entry kpm sets. kpm does not fix
 * these itself — repartitioning or re-replicating is an operator's decision.
 */
export function topicDrift(spec: TopicSpec, observed: ObservedTopic): TopicDrift[] {
  const drifts: TopicDrift[] = [];
  const differs = (setting: string, expected: string, actual: string) => {
    if (expected !== actual) drifts.push({ topic: spec.topic, setting, expected, actual });
  };
  differs('partitions', String(spec.numPartitions), String(observed.replicasPerPartition.length));
  if (spec.replicationFactor !== undefined) {
    const actual = [...new Set(observed.replicasPerPartition)].sort((a, b) => a - b).join(',');
    differs('replication.factor', String(spec.replicationFactor), actual || 'none');
  }
  for (const { name, value } of spec.configEntries) {
    differs(name, value, observed.configs[name] ?? 'unset');
  }
  return drifts;
}

/** Raised at start when existing topics differ from kpm's: the service must not run on them. */
export class TopicDriftError extends Error {
  constructor(readonly drifts: readonly TopicDrift[]) {
    super(
      `kpm's topics differ from its settings; fix them (or the settings) before starting:\n  ${drifts
        .map((d) => `topic ${d.topic}: ${d.setting} is ${d.actual}, kpm expects ${d.expected}`)
        .join('\n  ')}`,
    );
    this.name = 'TopicDriftError';
  }
}
