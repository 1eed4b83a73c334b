import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { Kafka, logLevel } from 'kafkajs';
import { topicSpecs } from '@kpm/contracts';
import { loadSettings, type KpmSettings, type WatcherConfig } from '@kpm/config';
import { TopicAdmin } from '@kpm/kafka';
import type { PodLab } from './kpm-pods';
import { stackEnv } from './stack-env';

export interface WatcherTestConfig {
  prefix: string;
  lab: PodLab;
  instance?: string;
  /** Another API server address (a proxy, a second API server) in a copy of the kubeconfig. */
  server?: string;
  watcher?: Partial<WatcherConfig>;
}

/** Snappy timings for tests: a silent stream or a dead leader is noticed within seconds. */
export const FAST_WATCHER: Partial<WatcherConfig> = {
  watchInactivitySeconds: 5,
  requestTimeoutSeconds: 5,
  retryInitialMs: 50,
  watcherRetrySleepSeconds: 1,
  leaseDurationSeconds: 4,
  leaseRenewDeadlineSeconds: 3,
  leaseRetryPeriodSeconds: 1,
};

/** The environment of a watcher under test (for a child process or loadSettings). */
export function watcherEnv(config: WatcherTestConfig): Record<string, string> {
  const { brokers, kubeconfig, topicReplication } = stackEnv();
  const dir = mkdtempSync(join(tmpdir(), 'kpm-watcher-test-'));
  const file = join(dir, 'kpm.yaml');
  writeFileSync(file, stringify({ watcher: { ...FAST_WATCHER, ...config.watcher } }));
  return {
    KPM_KAFKA_BROKERS: brokers.join(','),
    ...topicReplication,
    KPM_TOPIC_PREFIX: config.prefix,
    KPM_LABEL_DOMAIN: config.lab.domain,
    KPM_CONFIG: file,
    KPM_INSTANCE: config.instance ?? 'watcher-test',
    KPM_HTTP_PORT: '0',
    KUBECONFIG: config.server ? kubeconfigFor(config.server, dir, kubeconfig) : (kubeconfig ?? ''),
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
  };
}

export function watcherSettings(config: WatcherTestConfig): KpmSettings {
  return loadSettings('watcher', watcherEnv(config));
}

/** A copy of the stack's kubeconfig pointing at `server` (same CA, same token). */
function kubeconfigFor(server: string, dir: string, source?: string): string {
  if (!source) throw new Error('KUBECONFIG of the local stack is unknown');
  const config = parse(readFileSync(source, 'utf8')) as {
    clusters: Array<{ cluster: { server: string } }>;
  };
  for (const entry of config.clusters) entry.cluster.server = server;
  const file = join(dir, 'kubeconfig');
  writeFileSync(file, stringify(config));
  return file;
}

/** Creates the prefix's topics, so a probe can subscribe before any service started. */
export async function ensureTopics(prefix: string): Promise<void> {
  const kafka = new Kafka({ brokers: stackEnv().brokers, logLevel: logLevel.NOTHING });
  await new TopicAdmin(kafka).ensure(topicSpecs({ prefix }));
}
