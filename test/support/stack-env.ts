import { randomBytes } from 'node:crypto';
import { readStackEnv } from '@kpm/stack';

/** The running local stack's endpoints, as global-setup wrote them. */
export function stackEnv(): { brokers: string[]; kubeconfig?: string } {
  const env = { ...readStackEnv(), ...process.env };
  if (!env.KPM_KAFKA_BROKERS)
    throw new Error('KPM_KAFKA_BROKERS unset: is the local stack up (npx kpm stack up)?');
  return { brokers: env.KPM_KAFKA_BROKERS.split(','), kubeconfig: env.KUBECONFIG };
}

/** A topic prefix of its own per test file, so suites never read each other's records. */
export function uniqueTopicPrefix(label: string): string {
  return `t-${label}-${randomBytes(4).toString('hex')}`;
}
