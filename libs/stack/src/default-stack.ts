import type { StackComponent } from './component';
import { KafkaBroker, KafkaCluster, kafkaNodesSettings, SecureKafkaBroker } from './kafka';
import { KubeStack } from './kube';
import { LocalStack } from './local-stack';
import { RealNode } from './node';
import { KueueComponent, kueueRunning } from './kueue';
import { OtelCollectorComponent, otelCollectorRunning } from './otel';

/** The parts of the embedded stack, in start order. */
export const STACK_PARTS = ['kafka', 'kube', 'node'] as const;

export interface DefaultStackOptions {
  /**
   * Adds the OpenTelemetry Collector (`kpm stack up --otel`); default KPM_STACK_OTEL=1. One that
   * runs already stays part of the stack until `down`, asked or not.
   */
  otel?: boolean;
  /**
   * Adds Kueue beside the API server (`kpm stack up --kueue`), for kpm's pod groups; default
   * KPM_STACK_KUEUE=1. One that runs already stays part of the stack until `down`, asked or not.
   */
  kueue?: boolean;
}

/**
 * The stack `kpm stack up` and the integration tests use: Kafka, then the Kubernetes control
 * plane (kwok's simulated nodes among it), then the real node, then — when asked — Kueue and the
 * OpenTelemetry Collector. `parts` (or KPM_STACK_PARTS=kafka,kube) narrows it, e.g. to Kafka alone.
 */
export function defaultStack(
  parts: readonly string[] = partsFromEnv(),
  options: DefaultStackOptions = {},
): LocalStack {
  const unknown = parts.filter((part) => !(STACK_PARTS as readonly string[]).includes(part));
  if (unknown.length > 0)
    throw new Error(
      `kpm: unknown stack part(s) ${unknown.join(', ')}; known: ${STACK_PARTS.join(', ')}`,
    );
  const components: StackComponent[] = [];
  if (parts.includes('kafka')) components.push(kafkaBroker());
  const kube = new KubeStack();
  if (parts.includes('kube')) components.push(kube);
  if (parts.includes('node')) components.push(new RealNode({ endpoint: () => kube.endpoint() }));
  const kueue = options.kueue ?? process.env.KPM_STACK_KUEUE === '1';
  if (parts.includes('kube') && (kueue || kueueRunning()))
    components.push(new KueueComponent({ endpoint: () => kube.endpoint() }));
  const otel = options.otel ?? process.env.KPM_STACK_OTEL === '1';
  if (otel || otelCollectorRunning()) components.push(new OtelCollectorComponent());
  return new LocalStack(components);
}

/** The stack's real node alone: its faults (`kpm stack node …`) and its start. */
export function stackRealNode(): RealNode {
  const kube = new KubeStack();
  return new RealNode({ endpoint: () => kube.endpoint() });
}

/**
 * KPM_STACK_SECURE=1: the secured broker (SASL_SSL, ACLs) on its own ports instead;
 * KPM_KAFKA_BROKERS_COUNT > 1: a KRaft cluster of that many brokers instead of one.
 */
function kafkaBroker(): StackComponent {
  if (process.env.KPM_STACK_SECURE === '1') return new SecureKafkaBroker();
  return kafkaNodesSettings().length > 1 ? new KafkaCluster() : new KafkaBroker();
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
