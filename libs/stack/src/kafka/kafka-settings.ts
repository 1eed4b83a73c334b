import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
  /** `.kpm/data/kafka` (`kafka-<node>` in a cluster): server.properties and the log directory; kept by `down`. */
  dataDir: string;
  propertiesFile: string;
  logDir: string;
  /** KRaft node id: 1 for the one-broker stack, 1…n in a cluster. */
  nodeId: number;
  /** `controller.quorum.voters`: every node of the cluster (`1@127.0.0.1:19093,…`). */
  quorumVoters: string;
  /** Brokers in the cluster (`KPM_KAFKA_BROKERS_COUNT`, default 1). */
  brokersCount: number;
  /** Replicas of internal and kpm topics: min(3, brokers). */
  replicationFactor: number;
  /** `min.insync.replicas`: 2 from three brokers on (one may fail), else 1. */
  minInsyncReplicas: number;
  /** The daemon's name, so its pid and log files: `kafka`, or `kafka-<node>` in a cluster. */
  daemonName: string;
  /** Where its pid file and log live: `.kpm/run` and `.kpm/logs`, or under KPM_KAFKA_HOME. */
  runDir: string;
  logsDir: string;
}

export const DEFAULT_KAFKA_PORT = 19092;

/** The most brokers `KPM_KAFKA_BROKERS_COUNT` may ask for on one machine. */
export const MAX_KAFKA_BROKERS = 5;

/** The one-broker stack's node, or the first node of a cluster (see {@link kafkaNodesSettings}). */
export function kafkaStackSettings(env: NodeJS.ProcessEnv = process.env): KafkaStackSettings {
  return kafkaNodesSettings(env)[0];
}

/**
 * Every node of the local Kafka: one broker by default; with `KPM_KAFKA_BROKERS_COUNT=n` a KRaft
 * cluster of n combined broker+controller nodes, node i listening on `KPM_KAFKA_PORT + 2(i-1)`
 * and its controller on the next port, each with its own data directory. `KPM_KAFKA_HOME` moves
 * Kafka's data, pid files and logs out of KPM_HOME, so a second cluster can run beside the stack.
 */
export function kafkaNodesSettings(env: NodeJS.ProcessEnv = process.env): KafkaStackSettings[] {
  const count = brokersCount(env);
  const port = portFrom(env, 'KPM_KAFKA_PORT', DEFAULT_KAFKA_PORT);
  if (count > 1 && env.KPM_KAFKA_CONTROLLER_PORT) {
    throw new Error(
      'kpm: KPM_KAFKA_CONTROLLER_PORT applies to one broker; a cluster uses each client port + 1',
    );
  }
  const controllerPort = portFrom(env, 'KPM_KAFKA_CONTROLLER_PORT', port + 1);
  if (controllerPort === port) {
    throw new Error(`kpm: KPM_KAFKA_CONTROLLER_PORT must differ from KPM_KAFKA_PORT (${port})`);
  }
  if (port + 2 * count - 1 > 65535) {
    throw new Error(`kpm: ${count} brokers from KPM_KAFKA_PORT ${port} run past port 65535`);
  }
  const nodes = Array.from({ length: count }, (_, i) => ({
    nodeId: i + 1,
    port: port + 2 * i,
    controllerPort: count === 1 ? controllerPort : port + 2 * i + 1,
  }));
  const quorumVoters = nodes.map((n) => `${n.nodeId}@127.0.0.1:${n.controllerPort}`).join(',');
  const common = commonSettings(env, count);
  return nodes.map((node) => {
    const name = count === 1 ? 'kafka' : `kafka-${node.nodeId}`;
    const dataDir = common.home ? join(common.home, 'data', name) : stackPaths.data(name);
    return {
      ...common.shared,
      ...node,
      quorumVoters,
      daemonName: name,
      runDir: common.home ? join(common.home, 'run') : stackPaths.run(),
      logsDir: common.home ? join(common.home, 'logs') : stackPaths.logs(),
      dataDir,
      propertiesFile: join(dataDir, 'server.properties'),
      logDir: join(dataDir, 'log'),
    };
  });
}

function commonSettings(env: NodeJS.ProcessEnv, count: number) {
  const version = pinnedKafkaVersion();
  const heap = env.KPM_KAFKA_HEAP ?? '512m';
  if (!/^\d+[kmg]$/i.test(heap)) {
    throw new Error(`kpm: KPM_KAFKA_HEAP must look like 512m or 1g, got "${heap}"`);
  }
  const installDir = stackPaths.cache(`kafka-${version}`);
  const shared = {
    version,
    host: '127.0.0.1',
    heap,
    brokersCount: count,
    replicationFactor: Math.min(3, count),
    minInsyncReplicas: count >= 3 ? 2 : 1,
    pomFile: stackPaths.source('kafka', 'pom.xml'),
    templateFile: stackPaths.source('kafka', 'server.properties'),
    log4jFile: stackPaths.source('kafka', 'log4j2.yaml'),
    installDir,
    libsDir: join(installDir, 'libs'),
    classArchive: join(installDir, 'broker-classes.jsa'),
  };
  return { shared, home: env.KPM_KAFKA_HOME ? resolve(env.KPM_KAFKA_HOME) : undefined };
}

function brokersCount(env: NodeJS.ProcessEnv): number {
  const raw = env.KPM_KAFKA_BROKERS_COUNT;
  if (raw === undefined || raw === '') return 1;
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1 || count > MAX_KAFKA_BROKERS) {
    throw new Error(
      `kpm: KPM_KAFKA_BROKERS_COUNT must be a whole number from 1 to ${MAX_KAFKA_BROKERS}, got "${raw}"`,
    );
  }
  return count;
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

/** What clients of these nodes need in `.kpm/stack.env`: the brokers and the topics' replication. */
export function kafkaClientEnv(nodes: readonly KafkaStackSettings[]): Record<string, string> {
  return {
    KPM_KAFKA_BROKERS: nodes.map((node) => `${node.host}:${node.port}`).join(','),
    KPM_TOPIC_REPLICATION_FACTOR: String(nodes[0].replicationFactor),
    KPM_TOPIC_MIN_INSYNC_REPLICAS: String(nodes[0].minInsyncReplicas),
  };
}

/** The start lock of a node: `kafka` for the stack's broker, per port for any other. */
export function kafkaLockName(node: KafkaStackSettings): string {
  return node.daemonName === 'kafka' && node.runDir === stackPaths.run()
    ? 'kafka'
    : `kafka-${node.port}`;
}
