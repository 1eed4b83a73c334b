import { existsSync, readFileSync, rmSync } from 'node:fs';
import type { ComponentStatus, StackComponent, StackEnv } from '../component';
import { Daemon } from '../daemon';
import { fileSize, WaitAborted, waitFor } from '../wait';
import { withFileLock } from '../file-lock';
import { ensureKafkaInstalled, javaClasspathArgs, javaCommand } from './kafka-install';
import { describeCluster, warmCoordinators } from '@kpm/kafka';
import {
  kafkaClientEnv,
  kafkaLockName,
  kafkaStackSettings,
  type KafkaStackSettings,
} from './kafka-settings';
import { formatStorage, formattedClusterId, renderServerProperties } from './kafka-storage';

export interface KafkaBrokerOptions {
  /** Where `KPM_KAFKA_PORT`, `KPM_KAFKA_CONTROLLER_PORT`, `KPM_KAFKA_HEAP` are read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** How long a start may take until clients are served (default 90 s; a cold JVM on 2 cores needs ~10 s). */
  readyTimeoutMs?: number;
  /** Progress lines for the CLI ("resolving jars with Maven …"). */
  onProgress?: (message: string) => void;
  /** One node of a cluster ({@link KafkaCluster} passes it); default: the env's first node. */
  node?: KafkaStackSettings;
}

/**
 * The local Apache Kafka broker: one KRaft node (broker + controller) on 127.0.0.1 — alone, or
 * one node of a {@link KafkaCluster} — its jars
 * resolved from Maven Central on first use, its data in `.kpm/data/kafka` across restarts.
 */
export class KafkaBroker implements StackComponent {
  readonly name = 'kafka';
  readonly settings: KafkaStackSettings;
  private readonly daemon: Daemon;
  private readonly readyTimeoutMs: number;
  private readonly progress: (message: string) => void;

  constructor(options: KafkaBrokerOptions = {}) {
    this.settings = options.node ?? kafkaStackSettings(options.env ?? process.env);
    const { daemonName, runDir, logsDir } = this.settings;
    this.daemon = new Daemon(daemonName, { run: runDir, logs: logsDir });
    this.readyTimeoutMs = options.readyTimeoutMs ?? 90_000;
    this.progress = options.onProgress ?? (() => undefined);
  }

  /** `host:port` of the PLAINTEXT listener, the value of KPM_KAFKA_BROKERS. */
  get bootstrap(): string {
    return `${this.settings.host}:${this.settings.port}`;
  }

  get logFile(): string {
    return this.daemon.logFile;
  }

  async up(): Promise<StackEnv> {
    const env = kafkaClientEnv([this.settings]);
    if (this.pid() === undefined) {
      await withFileLock(kafkaLockName(this.settings), async () => {
        // Re-checked under the lock: a concurrent `up` may have started it meanwhile.
        if (this.pid() === undefined) await this.start();
      });
    }
    // Running, perhaps started by another `up`: check that it is ours and serving.
    this.assertListeningOnConfiguredPort();
    await this.waitReady();
    return env;
  }

  async down(): Promise<void> {
    // A clean KRaft shutdown flushes and closes the logs, so the next start skips recovery.
    await this.daemon.stop(30_000);
  }

  async status(): Promise<ComponentStatus> {
    const pid = this.pid();
    const clusterId = formattedClusterId(this.settings);
    const base = { name: this.name, endpoint: this.bootstrap };
    if (pid === undefined) {
      const detail = clusterId ? `stopped; data in ${this.settings.dataDir}` : 'not provisioned';
      return { ...base, running: false, detail };
    }
    const version = this.runningVersion() ?? this.settings.version;
    try {
      const cluster = await describeCluster(this.bootstrap);
      return {
        ...base,
        running: true,
        pid,
        detail: `Apache Kafka ${version} (KRaft), cluster ${cluster.clusterId}`,
      };
    } catch (error) {
      return {
        ...base,
        running: true,
        pid,
        detail: `process up but not serving: ${(error as Error).message}`,
      };
    }
  }

  /** The version the running broker logged at start ("Kafka version: x.y.z"). */
  runningVersion(): string | undefined {
    if (!existsSync(this.logFile)) return undefined;
    const matches = [...readFileSync(this.logFile, 'utf8').matchAll(/INFO Kafka version: (\S+)/g)];
    return matches.at(-1)?.[1];
  }

  /** The broker's pid, if our broker runs; a pid file left by a dead or foreign process is dropped. */
  pid(): number | undefined {
    const pid = this.daemon.pid();
    if (pid === undefined) return undefined;
    const cmdline = `/proc/${pid}/cmdline`;
    // Pids are reused after a reboot: only a JVM running kafka.Kafka counts (no /proc: trust it).
    if (existsSync(cmdline) && !readFileSync(cmdline, 'utf8').includes('kafka.Kafka')) {
      rmSync(this.daemon.pidFile, { force: true });
      return undefined;
    }
    return pid;
  }

  private async start(): Promise<void> {
    await ensureKafkaInstalled(this.settings, this.progress);
    renderServerProperties(this.settings);
    const { formatted } = await formatStorage(this.settings);
    if (formatted) this.progress(`kafka: formatted ${this.settings.logDir}`);
    this.launch();
    await this.waitReady();
    await warmCoordinators(this.bootstrap);
  }

  /**
   * Starts the JVM on rendered, formatted storage without waiting: a cluster launches every node
   * first, since none is ready before a majority of the controller quorum runs.
   */
  launch(): void {
    this.progress(`kafka: starting broker ${this.settings.nodeId} on ${this.bootstrap}`);
    this.daemon.start(javaCommand(), this.brokerArgs(), { cwd: this.settings.dataDir });
  }

  private brokerArgs(): string[] {
    const { heap } = this.settings;
    return [
      `-Xmx${heap}`,
      `-Xms${heap}`,
      // Kafka's own defaults (kafka-run-class.sh), minus the GC log files.
      '-XX:+UseG1GC',
      '-XX:MaxGCPauseMillis=20',
      '-XX:InitiatingHeapOccupancyPercent=35',
      '-XX:+ExplicitGCInvokesConcurrent',
      '-XX:+ExitOnOutOfMemoryError',
      '-Djava.awt.headless=true',
      ...this.classArchiveArgs(),
      ...javaClasspathArgs(this.settings),
      'kafka.Kafka',
      this.settings.propertiesFile,
    ];
  }

  /**
   * Class-loading dominates the broker's start on a small machine. The first run records the
   * loaded classes into an AppCDS archive when it exits (on `down`); later runs map it. A stale
   * or unusable archive is ignored by the JVM, which then starts normally.
   */
  private classArchiveArgs(): string[] {
    const archive = this.settings.classArchive;
    // Its per-class "skipping" warnings are noise: classes it cannot archive load as usual.
    const quiet = '-Xlog:cds*=off';
    return existsSync(archive)
      ? [quiet, `-XX:SharedArchiveFile=${archive}`]
      : [quiet, `-XX:ArchiveClassesAtExit=${archive}`];
  }

  /** Ready = our own cluster (not another broker on the port) lists this broker. */
  async waitReady(): Promise<void> {
    const expected = formattedClusterId(this.settings);
    await waitFor(
      `Kafka broker on ${this.bootstrap}`,
      async () => {
        if (this.pid() === undefined) {
          throw new WaitAborted(
            `kpm: the Kafka broker exited during start; ${this.daemon.logFile}:\n${this.daemon.tail(40)}`,
          );
        }
        const cluster = await describeCluster(this.bootstrap);
        if (expected && cluster.clusterId !== expected) {
          throw new WaitAborted(
            `kpm: ${this.bootstrap} serves cluster ${cluster.clusterId}, not ours (${expected}); is another broker using the port?`,
          );
        }
        return cluster.brokers.some((broker) => broker.port === this.settings.port);
      },
      {
        timeoutMs: this.readyTimeoutMs,
        intervalMs: 200,
        // After an unclean stop the broker recovers every partition's log before it serves
        // (10,000 partitions of a long-lived test stack: 2 min); its log grows meanwhile.
        progress: () => fileSize(this.daemon.logFile),
        onTimeout: () => `${this.daemon.logFile}:\n${this.daemon.tail(40)}`,
      },
    );
  }

  private assertListeningOnConfiguredPort(): void {
    if (!existsSync(this.settings.propertiesFile)) return;
    const listeners =
      /^listeners=(.*)$/m.exec(readFileSync(this.settings.propertiesFile, 'utf8'))?.[1] ?? '';
    const port = /PLAINTEXT:\/\/[^:,]+:(\d+)/.exec(listeners)?.[1];
    if (port !== undefined && Number(port) !== this.settings.port) {
      throw new Error(
        `kpm: the running Kafka broker listens on ${port}, but KPM_KAFKA_PORT asks for ${this.settings.port}; run \`kpm stack down\` first`,
      );
    }
  }
}
