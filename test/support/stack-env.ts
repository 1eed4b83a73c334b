import { randomBytes } from 'node:crypto';
import { readStackEnv } from '@kpm/stack';
import { recordTestPrefix } from './test-topics';

/**
 * The running local stack's endpoints, as global-setup wrote them, and the topic replication its
 * Kafka can hold (`topicReplication`, KPM_TOPIC_* variables for a service's environment).
 */
export function stackEnv(): {
  brokers: string[];
  kubeconfig?: string;
  topicReplication: Record<string, string>;
} {
  const env = { ...readStackEnv(), ...process.env };
  if (!env.KPM_KAFKA_BROKERS)
    throw new Error('KPM_KAFKA_BROKERS unset: is the local stack up (npx kpm stack up)?');
  const topicReplication: Record<string, string> = {};
  for (const name of ['KPM_TOPIC_REPLICATION_FACTOR', 'KPM_TOPIC_MIN_INSYNC_REPLICAS']) {
    if (env[name]) topicReplication[name] = env[name];
  }
  return {
    brokers: env.KPM_KAFKA_BROKERS.split(','),
    kubeconfig: env.KUBECONFIG,
    topicReplication,
  };
}

/**
 * A topic prefix of its own per test file, so suites never read each other's records; its topics
 * are deleted when the jest run ends (test-topics.ts).
 */
export function uniqueTopicPrefix(label: string): string {
  const prefix = `t-${label}-${randomBytes(4).toString('hex')}`;
  recordTestPrefix(prefix);
  return prefix;
}
