import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { javaClasspathArgs, javaCommand } from './kafka-install';
import type { KafkaStackSettings } from './kafka-settings';
import { runCommand } from '../run-command';

/** Short-lived JVMs for the tools: small heap, quick JIT, no need for the broker's tuning. */
const TOOL_JVM_FLAGS = ['-Xmx256m', '-XX:TieredStopAtLevel=1', '-Djava.awt.headless=true'];

/**
 * Writes `.kpm/data/kafka/server.properties` from the stack/kafka template with this machine's
 * ports and log directory. Rendered on every start so a changed port takes effect; the log
 * directory (and so the data) stays the same.
 */
export function renderServerProperties(settings: KafkaStackSettings): string {
  const rendered = renderedTemplate(settings);
  mkdirSync(settings.dataDir, { recursive: true });
  writeFileSync(settings.propertiesFile, rendered);
  return settings.propertiesFile;
}

/** The stack/kafka template with every `${KPM_KAFKA_*}` placeholder replaced for `settings`. */
export function renderedTemplate(settings: KafkaStackSettings): string {
  const values: Record<string, string> = {
    KPM_KAFKA_PORT: String(settings.port),
    KPM_KAFKA_CONTROLLER_PORT: String(settings.controllerPort),
    KPM_KAFKA_LOG_DIR: settings.logDir,
    KPM_KAFKA_NODE_ID: String(settings.nodeId),
    KPM_KAFKA_QUORUM_VOTERS: settings.quorumVoters,
    KPM_KAFKA_REPLICATION_FACTOR: String(settings.replicationFactor),
    KPM_KAFKA_MIN_INSYNC_REPLICAS: String(settings.minInsyncReplicas),
  };
  const template = readFileSync(settings.templateFile, 'utf8');
  return template.replace(/\$\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined)
      throw new Error(`kpm: unknown placeholder ${whole} in ${settings.templateFile}`);
    return value;
  });
}

/** The cluster id of a formatted log directory, or undefined before the first format. */
export function formattedClusterId(settings: KafkaStackSettings): string | undefined {
  const meta = join(settings.logDir, 'meta.properties');
  if (!existsSync(meta)) return undefined;
  return /^cluster\.id=(.+)$/m.exec(readFileSync(meta, 'utf8'))?.[1]?.trim();
}

/**
 * Formats the KRaft log directory once (a new cluster id, the bootstrap metadata); later calls
 * find meta.properties and return its cluster id. Expects rendered server.properties.
 */
export async function formatStorage(
  settings: KafkaStackSettings,
  /** The cluster's id when another node was formatted first (all nodes share one id). */
  givenClusterId?: string,
): Promise<{ clusterId: string; formatted: boolean }> {
  const existing = formattedClusterId(settings);
  if (existing) return { clusterId: existing, formatted: false };
  const clusterId = givenClusterId ?? (await newClusterId(settings));
  // --ignore-formatted: a directory formatted by a concurrent `up` is not an error.
  await storageTool(settings, [
    'format',
    '-t',
    clusterId,
    '-c',
    settings.propertiesFile,
    '--ignore-formatted',
  ]);
  // Another process may have won the race with its own id; the directory is the truth.
  return { clusterId: formattedClusterId(settings) ?? clusterId, formatted: true };
}

async function newClusterId(settings: KafkaStackSettings): Promise<string> {
  const generated = await storageTool(settings, ['random-uuid']);
  const clusterId = generated.trim().split('\n').pop()?.trim() ?? '';
  if (!/^[A-Za-z0-9_-]{22}$/.test(clusterId)) {
    throw new Error(`kpm: StorageTool random-uuid printed no cluster id:\n${generated}`);
  }
  return clusterId;
}

function storageTool(settings: KafkaStackSettings, args: string[]): Promise<string> {
  return runCommand(
    javaCommand(),
    [...TOOL_JVM_FLAGS, ...javaClasspathArgs(settings), 'kafka.tools.StorageTool', ...args],
    {
      cwd: settings.dataDir,
      timeoutMs: 120_000,
      installHint: 'install a Java 17+ runtime, e.g. apt-get install openjdk-17-jre-headless',
    },
  );
}
