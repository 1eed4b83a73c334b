import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stackPaths } from '../paths';

/** Where the local broker's files live and how it listens; derived from the pom and `KPM_KAFKA_*`. */
export interface KafkaStackSettings {
  /** The Apache Kafka release, pinned once in stack/kafka/pom.xml (`kafka.version`). */
  version: string;
  host: string;
  /** PLAINTEXT listener for clients (`KPM_KAFKA_PORT`, default 19092). */
  port: number;
  /** KRaft controller listener (`KPM_KAFKA_CONTROLLER_PORT`, default port + 1). */
  controllerPort: number;
  /** Maximum JVM heap, e.g. `512m` (`KPM_KAFKA_HEAP`). */
  heap: string;
  pomFile: string;
  templateFile: string;
  log4jFile: string;
  /** `<tool cache>/kafka-<version>` (see `toolCache()`): per version, so a version bump installs beside the old one. */
  installDir: string;
  libsDir: string;
  /** AppCDS archive of the broker's classes, written at the first broker exit (JVM start ~40% faster). */
  classArchive: string;
  /** `.kpm/data/kafka`: the rendered server.properties and the log directory; kept by `down`. */
  dataDir: string;
  propertiesFile: string;
  logDir: string;
}

export const DEFAULT_KAFKA_PORT = 19092;

export function kafkaStackSettings(env: NodeJS.ProcessEnv = process.env): KafkaStackSettings {
  const version = pinnedKafkaVersion();
  const port = portFrom(env, 'KPM_KAFKA_PORT', DEFAULT_KAFKA_PORT);
  const controllerPort = portFrom(env, 'KPM_KAFKA_CONTROLLER_PORT', port + 1);
  if (controllerPort === port) {
    throw new Error(`kpm: KPM_KAFKA_CONTROLLER_PORT must differ from KPM_KAFKA_PORT (${port})`);
  }
  const heap = env.KPM_KAFKA_HEAP ?? '512m';
  if (!/^\d+[kmg]$/i.test(heap)) {
    throw new Error(`kpm: KPM_KAFKA_HEAP must look like 512m or 1g, got "${heap}"`);
  }
  const installDir = stackPaths.cache(`kafka-${version}`);
  const dataDir = stackPaths.data('kafka');
  return {
    version,
    host: '127.0.0.1',
    port,
    controllerPort,
    heap,
    pomFile: stackPaths.source('kafka', 'pom.xml'),
    templateFile: stackPaths.source('kafka', 'server.properties'),
    log4jFile: stackPaths.source('kafka', 'log4j2.yaml'),
    installDir,
    libsDir: join(installDir, 'libs'),
    classArchive: join(installDir, 'broker-classes.jsa'),
    dataDir,
    propertiesFile: join(dataDir, 'server.properties'),
    logDir: join(dataDir, 'log'),
  };
}

/** The version in stack/kafka/pom.xml, so the pom stays the only place it is written. */
export function pinnedKafkaVersion(
  pomFile: string = stackPaths.source('kafka', 'pom.xml'),
): string {
  const match = /<kafka\.version>\s*([^<\s]+)\s*<\/kafka\.version>/.exec(
    readFileSync(pomFile, 'utf8'),
  );
  if (!match) throw new Error(`kpm: no <kafka.version> in ${pomFile}`);
  return match[1];
}

function portFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`kpm: ${name} must be a TCP port (1-65535), got "${raw}"`);
  }
  return port;
}
