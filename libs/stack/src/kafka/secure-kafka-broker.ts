/**
 * The secured local broker (`KPM_STACK_SECURE=1 npx kpm stack up`): a KRaft node with only a
 * SASL_SSL client listener signed by its own CA, SCRAM users per service plus an operator
 * (SECURE_PRINCIPALS, created when its storage is formatted), the StandardAuthorizer, kpm's topics
 * and the least ACLs of each role (`kpmAcls`). It is a separate process from the plaintext broker,
 * with its own ports and data directory; `.kpm/stack.env` then holds the operator's client
 * settings and where the services' password files are.
 */
import { existsSync } from 'node:fs';
import {
  DEFAULT_FEED_NAMING,
  DEFAULT_PARTITIONS,
  DEFAULT_TOPIC_PREFIX,
  feedTopicNames,
  topicSpecs,
} from '@kpm/contracts';
import {
  applyAcls,
  createKafkaClient,
  createTopicsWithLeaders,
  kpmAcls,
  TopicAdmin,
  withAdmin,
  type KafkaClient,
} from '@kpm/kafka';
import type { ComponentStatus, StackComponent, StackEnv } from '../component';
import { Daemon } from '../daemon';
import { withFileLock } from '../file-lock';
import { waitFor, WaitAborted } from '../wait';
import { installKafka, isKafkaInstalled, javaClasspathArgs, javaCommand } from './kafka-install';
import { formattedClusterId } from './kafka-storage';
import { runCommand } from '../run-command';
import { ensureBrokerCertificates, type BrokerCertificates } from './secure-certificates';
import {
  password,
  passwordFile,
  renderSecureProperties,
  secureClientEnv,
  secureKafkaSettings,
  SECURE_MECHANISM,
  SECURE_PRINCIPALS,
  type SecureKafkaSettings,
} from './secure-kafka-settings';

export class SecureKafkaBroker implements StackComponent {
  readonly name = 'kafka-secure';
  readonly settings: SecureKafkaSettings;
  private readonly daemon = new Daemon('kafka-secure');
  private readonly topicPrefix: string;

  constructor(
    env: NodeJS.ProcessEnv = process.env,
    private readonly progress: (message: string) => void = () => undefined,
  ) {
    this.settings = secureKafkaSettings(env);
    this.topicPrefix = env.KPM_TOPIC_PREFIX || DEFAULT_TOPIC_PREFIX;
  }

  get bootstrap(): string {
    return `${this.settings.host}:${this.settings.port}`;
  }

  async up(): Promise<StackEnv> {
    const certificates = await ensureBrokerCertificates(this.settings.secretsDir);
    if (this.daemon.pid() === undefined) {
      await withFileLock('kafka-secure', async () => {
        if (this.daemon.pid() === undefined) await this.start(certificates);
      });
    }
    const admin = this.client('kpm-broker', certificates, 'kpm-stack-secure');
    await this.waitReady(admin);
    await this.provision(admin);
    return {
      ...secureClientEnv(this.settings, certificates.caFile, 'kpm-operator'),
      KPM_KAFKA_SECRETS_DIR: this.settings.secretsDir,
      // The ACLs name this prefix's topics.
      KPM_TOPIC_PREFIX: this.topicPrefix,
    };
  }

  async down(): Promise<void> {
    await this.daemon.stop(30_000);
  }

  status(): Promise<ComponentStatus> {
    const pid = this.daemon.pid();
    const base = { name: this.name, endpoint: `SASL_SSL://${this.bootstrap}` };
    if (pid === undefined) return Promise.resolve({ ...base, running: false, detail: 'stopped' });
    const detail = `Apache Kafka ${this.settings.version}, SASL_SSL`;
    return Promise.resolve({ ...base, running: true, pid, detail });
  }

  /** A client of this broker as `user`, trusting its CA. */
  client(user: string, certificates: BrokerCertificates, clientId: string): KafkaClient {
    return createKafkaClient(
      {
        brokers: [this.bootstrap],
        clientId,
        ssl: { caFile: certificates.caFile },
        sasl: {
          mechanism: 'scram-sha-512',
          username: user,
          passwordFile: passwordFile(this.settings, user),
        },
      },
      { logs: 'silent', retries: 3, maxRetryTimeMs: 1_000 },
    );
  }

  private async start(certificates: BrokerCertificates): Promise<void> {
    if (!isKafkaInstalled(this.settings)) {
      this.progress(`kafka-secure: resolving Apache Kafka ${this.settings.version} with Maven`);
      await installKafka(this.settings);
    }
    renderSecureProperties(this.settings, certificates.keystoreFile, certificates.caFile);
    if (!formattedClusterId(this.settings)) await this.format();
    this.progress(`kafka-secure: starting broker on SASL_SSL://${this.bootstrap}`);
    this.daemon.start(javaCommand(), this.brokerArgs(), { cwd: this.settings.dataDir });
  }

  /** Formats the log directory with every principal's SCRAM credential in its first metadata. */
  private async format(): Promise<void> {
    const scram = SECURE_PRINCIPALS.flatMap(({ user }) => [
      '--add-scram',
      `${SECURE_MECHANISM}=[name=${user},password=${password(this.settings, user)}]`,
    ]);
    const tool = (args: string[]) =>
      runCommand(
        javaCommand(),
        ['-Xmx256m', ...javaClasspathArgs(this.settings), 'kafka.tools.StorageTool', ...args],
        { cwd: this.settings.dataDir, timeoutMs: 120_000 },
      );
    const clusterId = (await tool(['random-uuid'])).trim().split('\n').pop()!.trim();
    await tool(['format', '-t', clusterId, '-c', this.settings.propertiesFile, ...scram]);
    this.progress(
      `kafka-secure: formatted ${this.settings.logDir} with ${SECURE_PRINCIPALS.length} SCRAM users`,
    );
  }

  private brokerArgs(): string[] {
    const { heap, classArchive } = this.settings;
    // The plaintext broker's class archive, when there is one, is only read here.
    const archive = existsSync(classArchive)
      ? ['-Xlog:cds*=off', `-XX:SharedArchiveFile=${classArchive}`]
      : [];
    return [
      `-Xmx${heap}`,
      `-Xms${heap}`,
      '-XX:+UseG1GC',
      '-XX:+ExitOnOutOfMemoryError',
      '-Djava.awt.headless=true',
      ...archive,
      ...javaClasspathArgs(this.settings),
      'kafka.Kafka',
      this.settings.propertiesFile,
    ];
  }

  private async waitReady(admin: KafkaClient): Promise<void> {
    await waitFor(
      `secured Kafka broker on ${this.bootstrap}`,
      async () => {
        if (this.daemon.pid() === undefined) {
          throw new WaitAborted(
            `kpm: the secured broker exited; ${this.daemon.logFile}:\n${this.daemon.tail(40)}`,
          );
        }
        const client = admin.admin();
        try {
          await client.connect();
          return (await client.describeCluster()).brokers.length > 0;
        } catch {
          return false;
        } finally {
          await client.disconnect();
        }
      },
      {
        timeoutMs: 120_000,
        intervalMs: 500,
        onTimeout: () => `${this.daemon.logFile}:\n${this.daemon.tail(40)}`,
      },
    );
  }

  /**
   * kpm's topics, DUNE's feed topics (the state service then needs no Create) and each role's
   * ACLs, created by the broker's own (super) user; idempotent.
   */
  private async provision(admin: KafkaClient): Promise<void> {
    await new TopicAdmin(admin).ensure(
      topicSpecs({ prefix: this.topicPrefix, partitions: DEFAULT_PARTITIONS }),
    );
    const feeds = feedTopicNames(DEFAULT_FEED_NAMING);
    await withAdmin(admin, async (client) => {
      const existing = new Set(await client.listTopics());
      const missing = Object.values(feeds).filter((topic) => !existing.has(topic));
      if (missing.length === 0) return;
      await createTopicsWithLeaders(
        client,
        missing.map((topic) => ({
          topic,
          numPartitions: topic === feeds.broadcast ? 1 : DEFAULT_PARTITIONS,
          replicationFactor: 1,
        })),
      );
    });
    const acls = SECURE_PRINCIPALS.flatMap(({ user, role }) =>
      role ? kpmAcls(role, user, this.topicPrefix, Object.values(feeds)) : [],
    );
    await applyAcls(admin, acls);
  }
}
