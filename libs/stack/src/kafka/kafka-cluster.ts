import type { ComponentStatus, StackComponent, StackEnv } from '../component';
import { Daemon } from '../daemon';
import { withFileLock } from '../file-lock';
import { KafkaBroker, type KafkaBrokerOptions } from './kafka-broker';
import { ensureKafkaInstalled } from './kafka-install';
import { warmCoordinators } from '@kpm/kafka';
import {
  kafkaClientEnv,
  kafkaLockName,
  kafkaNodesSettings,
  type KafkaStackSettings,
} from './kafka-settings';
import { formatStorage, renderServerProperties } from './kafka-storage';

/**
 * A local KRaft cluster of `KPM_KAFKA_BROKERS_COUNT` nodes, each broker and controller, from the
 * same jars as the one-broker stack: production's shape (replication 3, min.insync.replicas 2)
 * on one machine, so broker failover can be exercised. Nodes share one cluster id.
 */
export class KafkaCluster implements StackComponent {
  readonly name = 'kafka';
  readonly nodes: KafkaBroker[];
  private readonly progress: (message: string) => void;

  constructor(options: Omit<KafkaBrokerOptions, 'node'> = {}) {
    this.progress = options.onProgress ?? (() => undefined);
    this.nodes = kafkaNodesSettings(options.env ?? process.env).map(
      (node) => new KafkaBroker({ ...options, node }),
    );
  }

  /** Every node's `host:port`, the value of KPM_KAFKA_BROKERS. */
  get bootstrap(): string {
    return this.nodes.map((node) => node.bootstrap).join(',');
  }

  private get settings(): KafkaStackSettings[] {
    return this.nodes.map((node) => node.settings);
  }

  async up(): Promise<StackEnv> {
    if (this.nodes.some((node) => node.pid() === undefined)) {
      await withFileLock(kafkaLockName(this.settings[0]), () => this.start());
    }
    await Promise.all(this.nodes.map((node) => node.waitReady()));
    return kafkaClientEnv(this.settings);
  }

  async down(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.down()));
  }

  async status(): Promise<ComponentStatus> {
    const nodes = await Promise.all(this.nodes.map((node) => node.status()));
    const running = nodes.filter((node) => node.running).length;
    return {
      name: this.name,
      running: running === nodes.length,
      pid: nodes[0].pid,
      endpoint: this.bootstrap,
      detail: `${running} of ${nodes.length} brokers running; ${nodes.map((n) => `${n.endpoint}: ${n.detail ?? ''}`).join('; ')}`,
    };
  }

  /** Formats every node with one cluster id, launches the stopped ones, waits for all. */
  private async start(): Promise<void> {
    this.refuseBesideTheOneBroker();
    await ensureKafkaInstalled(this.settings[0], this.progress);
    let clusterId: string | undefined;
    for (const node of this.settings) {
      renderServerProperties(node);
      const formatted = await formatStorage(node, clusterId);
      if (clusterId !== undefined && formatted.clusterId !== clusterId) {
        throw new Error(
          `kpm: ${node.logDir} belongs to Kafka cluster ${formatted.clusterId}, not ${clusterId}; remove the cluster's data directories to start afresh`,
        );
      }
      clusterId = formatted.clusterId;
    }
    for (const node of this.nodes) if (node.pid() === undefined) node.launch();
    await Promise.all(this.nodes.map((node) => node.waitReady()));
    await warmCoordinators(this.nodes[0].bootstrap);
    this.progress(`kafka: ${this.nodes.length} brokers ready on ${this.bootstrap}`);
  }

  /** Node 1 would take the one-broker stack's port and home: stop that broker first. */
  private refuseBesideTheOneBroker(): void {
    const first = this.settings[0];
    const single = new Daemon('kafka', { run: first.runDir, logs: first.logsDir });
    if (single.pid() !== undefined) {
      throw new Error(
        'kpm: the one-broker Kafka of this KPM_HOME is running; `kpm stack down` it before starting a cluster here',
      );
    }
  }
}
