import { loadSettings, type KpmSettings } from '@kpm/config';
import { stackEnv } from './stack-env';

/** Settings of a service under test: the local stack, a private topic prefix, an ephemeral port. */
export function testSettings(
  service: string,
  topicPrefix: string,
  extra: Record<string, string> = {},
): KpmSettings {
  const { brokers, kubeconfig, topicReplication } = stackEnv();
  return loadSettings(service, {
    KPM_KAFKA_BROKERS: brokers.join(','),
    ...topicReplication,
    KPM_TOPIC_PREFIX: topicPrefix,
    KPM_HTTP_PORT: '0',
    KUBECONFIG: kubeconfig,
    KPM_INSTANCE: `${service}-test`,
    ...extra,
  });
}
