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
