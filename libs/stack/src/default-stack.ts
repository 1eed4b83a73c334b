import type { StackComponent } from './component';
import { KafkaBroker, KafkaCluster, kafkaNodesSettings } from './kafka';
import { KubeStack } from './kube';
import { LocalStack } from './local-stack';

/** The parts of the embedded stack, in start order. */
export const STACK_PARTS = ['kafka', 'kube'] as const;

/**
 * The stack `kpm stack up` and the integration tests use: Kafka, then the Kubernetes control
 * plane. `parts` (or KPM_STACK_PARTS=kafka,kube) narrows it, e.g. to Kafka alone.
 */
export function defaultStack(parts: readonly string[] = partsFromEnv()): LocalStack {
  const unknown = parts.filter((part) => !(STACK_PARTS as readonly string[]).includes(part));
  if (unknown.length > 0)
    throw new Error(
      `kpm: unknown stack part(s) ${unknown.join(', ')}; known: ${STACK_PARTS.join(', ')}`,
    );
  const components: StackComponent[] = [];
  // KPM_KAFKA_BROKERS_COUNT > 1: a KRaft cluster of that many brokers instead of one.
  if (parts.includes('kafka'))
    components.push(kafkaNodesSettings().length > 1 ? new KafkaCluster() : new KafkaBroker());
  if (parts.includes('kube')) components.push(new KubeStack());
  return new LocalStack(components);
}

function partsFromEnv(): string[] {
  const raw = process.env.KPM_STACK_PARTS;
  return raw
    ? raw
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)
    : [...STACK_PARTS];
}
