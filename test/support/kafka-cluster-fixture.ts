import { eventually } from '@kpm/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { isAlive } from '@kpm/stack';
import { KafkaCluster, type KafkaBroker } from '@kpm/stack/kafka';

/**
 * A three-broker KRaft cluster of the suite's own, beside the shared one-broker stack: its own
 * ports and a private KPM_KAFKA_HOME (data, pid files, logs), torn down and removed at the end.
 * The suite still uses the shared API server.
 */
export class KafkaClusterFixture {
  readonly admin: Admin;

  private constructor(
    readonly cluster: KafkaCluster,
    private readonly home: string,
  ) {
    this.admin = new Kafka({
      clientId: 'kpm-test-cluster-admin',
      brokers: cluster.bootstrap.split(','),
      logLevel: logLevel.NOTHING,
    }).admin();
  }

  static async start(brokers = 3): Promise<KafkaClusterFixture> {
    const home = mkdtempSync(join(tmpdir(), 'kpm-kafka-cluster-'));
    const port = await freePortRun(2 * brokers);
    const cluster = new KafkaCluster({
      env: {
        ...process.env,
        KPM_KAFKA_BROKERS_COUNT: String(brokers),
        KPM_KAFKA_PORT: String(port),
        KPM_KAFKA_CONTROLLER_PORT: '',
        KPM_KAFKA_HOME: home,
        KPM_KAFKA_HEAP: '384m',
      },
      readyTimeoutMs: 180_000,
    });
    const fixture = new KafkaClusterFixture(cluster, home);
    fixture.env = await cluster.up();
    await fixture.admin.connect();
    return fixture;
  }

  /** KPM_KAFKA_BROKERS and the topic replication (3 / 2) for the services' environment. */
  env: Record<string, string> = {};

  get brokers(): string[] {
    return this.cluster.bootstrap.split(',');
  }

  node(nodeId: number): KafkaBroker {
    const node = this.cluster.nodes.find((n) => n.settings.nodeId === nodeId);
    if (!node) throw new Error(`no broker ${nodeId} in the cluster`);
    return node;
  }

  /** The broker leading `partition` of `topic`, from the cluster's metadata. */
  async leaderOf(topic: string, partition: number): Promise<number> {
    const { topics } = await this.admin.fetchTopicMetadata({ topics: [topic] });
    const found = topics[0]?.partitions.find((p) => p.partitionId === partition);
    if (!found || found.leader < 0) throw new Error(`${topic}/${partition} has no leader`);
    return found.leader;
  }

  /** kill -9 of the broker's JVM; resolves once the process is gone. */
  async kill9(nodeId: number): Promise<void> {
    const pid = this.node(nodeId).pid();
    if (pid === undefined) throw new Error(`broker ${nodeId} is not running`);
    process.kill(pid, 'SIGKILL');
    await eventually(() => !isAlive(pid), { what: `broker ${nodeId} gone`, timeoutMs: 30_000 });
  }

  /** Waits until every partition of `topics` has all its replicas in sync again. */
  async fullyInSync(topics: string[], timeoutMs = 120_000): Promise<void> {
    await eventually(
      async () => {
        const { topics: found } = await this.admin.fetchTopicMetadata({ topics });
        return found.every((t) => t.partitions.every((p) => p.isr.length === p.replicas.length));
      },
      { what: 'every replica in sync', timeoutMs, everyMs: 200 },
    );
  }

  async stop(): Promise<void> {
    await this.admin.disconnect().catch(() => undefined);
    await this.cluster.down();
    rmSync(this.home, { recursive: true, force: true });
  }
}

/** The first of `count` consecutive free TCP ports on 127.0.0.1, from a random start. */
async function freePortRun(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 30_000 + Math.floor(Math.random() * 20_000);
    const free = await Promise.all(Array.from({ length: count }, (_, i) => portIsFree(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
