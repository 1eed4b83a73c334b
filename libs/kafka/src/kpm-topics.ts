import { topicSpecs, type TopicSpec } from '@kpm/contracts';
import type { KafkaSettings } from './kafka-settings';

type TopicSettings = Pick<
  KafkaSettings,
  'topicPrefix' | 'partitions' | 'replicationFactor' | 'minInsyncReplicas'
>;

/** kpm's topics as this deployment's settings shape them: what services and the CLI create. */
export function kpmTopicSpecs(settings: TopicSettings): TopicSpec[] {
  return topicSpecs({
    prefix: settings.topicPrefix,
    partitions: settings.partitions,
    replicationFactor: settings.replicationFactor,
    minInsyncReplicas: settings.minInsyncReplicas,
  });
}

/** The services that consume in a group of their own. */
type GroupService = 'boot-worker' | 'state';

/**
 * A service's consumer group: `<prefix>-<service>`. The state service's transactional ids start
 * with it too (`<prefix>-state-<p>`), so its ACLs grant both by that prefix.
 */
export function consumerGroupId(topicPrefix: string, service: GroupService): string {
  return `${topicPrefix}-${service}`;
}
