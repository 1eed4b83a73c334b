import { loadSettings, type KpmSettings } from '@kpm/config';
import { LOCAL_SERVICE_SETTINGS } from '@kpm/stack';
import { stackEnv } from './stack-env';

/**
 * Settings of a service under test: the local stack's (LOCAL_SERVICE_SETTINGS), a private topic
 * prefix, an ephemeral port.
 */
export function testSettings(
  service: string,
  topicPrefix: string,
  extra: Record<string, string> = {},
): KpmSettings {
  const { brokers, kubeconfig, topicReplication } = stackEnv();
  return loadSettings(service, {
    ...LOCAL_SERVICE_SETTINGS,
    KPM_KAFKA_BROKERS: brokers.join(','),
    ...topicReplication,
    KPM_TOPIC_PREFIX: topicPrefix,
    KPM_HTTP_PORT: '0',
    KUBECONFIG: kubeconfig,
    KPM_INSTANCE: `${service}-test`,
    ...extra,
  });
}
