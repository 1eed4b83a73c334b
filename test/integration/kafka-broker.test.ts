import { eventually } from '@kpm/common';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTopicsWithLeaders, kpmTopicSpecs, TopicAdmin, TopicDriftError } from '@kpm/kafka';
import {
  ConfigResourceTypes,
  Kafka,
  logLevel,
  type Admin,
  type Consumer,
  type ConsumerConfig,
  type KafkaMessage,
  type Producer,
  type ProducerConfig,
} from 'kafkajs';
import {
  fetchApiVersions,
  formattedClusterId,
  KafkaBroker,
  kafkajsApiGaps,
  pinnedKafkaVersion,
} from '@kpm/stack/kafka';

/**
 * The local broker against kafkajs 2.2.4, the client every kpm service uses: the protocol
 * paths kpm needs (topics, groups, idempotence, consume-transform-produce transactions) must
 * work on the pinned Kafka release, which removed old protocol versions (KIP-896).
 */

const runId = `${Date.now().toString(36)}${process.pid}`;
const topicName = (name: string) => `test.kafka-broker.${runId}.${name}`;

interface Received {
  topic: string;
  partition: number;
  key: string;
  value: string;
  message: KafkaMessage;
}

/** Record-batch facts kafkajs decodes but does not type. */
interface BatchContext {
  producerId: string;
  firstSequence: number;
  inTransaction: boolean;
}
const batchContextOf = (message: KafkaMessage) =>
  (message as KafkaMessage & { batchContext: BatchContext }).batchContext;

class Clients {
  private readonly open: Array<{ disconnect(): Promise<void> }> = [];
  constructor(readonly kafka: Kafka) {}

  async admin(): Promise<Admin> {
    return this.track(this.kafka.admin());
  }
  async producer(config: ProducerConfig = {}): Promise<Producer> {
    return this.track(this.kafka.producer(config));
  }
  async consumer(config: ConsumerConfig, ...topics: string[]): Promise<Consumer> {
    const consumer = await this.track(this.kafka.consumer(config));
    await consumer.subscribe({ topics, fromBeginning: true });
    return consumer;
  }
  async closeAll(): Promise<void> {
    await Promise.all(this.open.splice(0).map((client) => client.disconnect()));
  }
  private async track<T extends { connect(): Promise<void>; disconnect(): Promise<void> }>(
    client: T,
  ): Promise<T> {
    await client.connect();
    this.open.push(client);
    return client;
  }
}

function clientsFor(bootstrap: string): Clients {
  return new Clients(
    new Kafka({
      clientId: `kafka-broker-test-${runId}`,
      brokers: [bootstrap],
      logLevel: logLevel.NOTHING,
    }),
  );
}

/** Runs the consumer until `done` holds for what it received; rejects if the consumer crashes. */
function consumeUntil(
  consumer: Consumer,
  done: (received: Received[]) => boolean,
): Promise<Received[]> {
  const received: Received[] = [];
  return new Promise((resolve, reject) => {
    consumer.on(consumer.events.CRASH, (event) => reject(event.payload.error));
    consumer
      .run({
        eachMessage: ({ topic, partition, message }) => {
          received.push({
            topic,
            partition,
            key: String(message.key),
            value: String(message.value),
            message,
          });
          if (done(received)) resolve(received);
          return Promise.resolve();
        },
      })
      .catch(reject);
  });
}

const valuesOf = (received: Received[]) => received.map((record) => record.value);

/** The group's committed offset of every partition is its end (-1 where nothing was there to read). */
/** One config of a topic as the broker reports it now. */
async function topicConfig(admin: Admin, topic: string, name: string): Promise<string | undefined> {
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: [name] }],
  });
  return described.resources[0]?.configEntries.find((e) => e.configName === name)?.configValue;
}

async function expectCommittedAtEnd(admin: Admin, groupId: string, topic: string): Promise<void> {
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const ends = await admin.fetchTopicOffsets(topic);
  const byPartition = (rows: Array<{ partition: number; offset: string }>) =>
    Object.fromEntries(rows.map((row) => [row.partition, row.offset]));
  expect(byPartition(committed.partitions)).toEqual(
    byPartition(
      ends.map((end) => ({ partition: end.partition, offset: end.high === '0' ? '-1' : end.high })),
    ),
  );
}

describe('the local Kafka broker', () => {
  const broker = new KafkaBroker();
  let clients: Clients;
  let admin: Admin;

  beforeAll(async () => {
    const env = await broker.up();
    clients = clientsFor(env.KPM_KAFKA_BROKERS);
    admin = await clients.admin();
  });

  afterAll(async () => {
    await clients?.closeAll();
  });

  it('is reused by a second up(), quickly', async () => {
    const pid = broker.pid();
    const started = Date.now();
    expect(await broker.up()).toEqual({
      KPM_KAFKA_BROKERS: broker.bootstrap,
      KPM_TOPIC_REPLICATION_FACTOR: '1',
      KPM_TOPIC_MIN_INSYNC_REPLICAS: '1',
    });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(broker.pid()).toBe(pid);
    expect((await broker.status()).running).toBe(true);
  });

  it('runs the Kafka release pinned in stack/kafka/pom.xml', async () => {
    const version = pinnedKafkaVersion();
    expect(broker.settings.version).toBe(version);
    // The broker's own AppInfoParser line, logged at start.
    expect(broker.runningVersion()).toBe(version);
    // The running JVM's classpath is that version's install, which holds that kafka jar.
    const cmdline = readFileSync(`/proc/${broker.pid()}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toContain(join(broker.settings.libsDir, '*'));
    expect(broker.settings.libsDir).toContain(`kafka-${version}`);
    expect(readdirSync(broker.settings.libsDir)).toContain(`kafka_2.13-${version}.jar`);
    // And it is our cluster on the advertised port.
    const cluster = await admin.describeCluster();
    expect(cluster.clusterId).toBe(formattedClusterId(broker.settings));
    expect(cluster.brokers).toEqual([{ nodeId: 1, host: '127.0.0.1', port: broker.settings.port }]);
    expect((await broker.status()).detail).toContain(`Apache Kafka ${version}`);
  });

  it('serves a version of every request kafkajs 2.2.4 implements (KIP-896 dropped old ones)', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect((require('kafkajs/package.json') as { version: string }).version).toBe('2.2.4');
    const served = await fetchApiVersions(broker.settings.host, broker.settings.port);
    expect(kafkajsApiGaps(served)).toEqual([]);
    // Produce, Fetch, ListOffsets, Metadata, OffsetCommit/Fetch, FindCoordinator, JoinGroup,
    // Heartbeat, LeaveGroup, SyncGroup, CreateTopics, InitProducerId, AddPartitions/OffsetsToTxn,
    // EndTxn, TxnOffsetCommit: the paths kpm's services take.
    const used = [0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 19, 22, 24, 25, 26, 28];
    expect(served.map((range) => range.apiKey)).toEqual(expect.arrayContaining(used));
  });

  it('creates topics explicitly and never auto-creates them', async () => {
    const events = topicName('events');
    const table = topicName('table');
    const created = await createTopicsWithLeaders(admin, [
      {
        topic: events,
        numPartitions: 6,
        configEntries: [{ name: 'retention.ms', value: '604800000' }],
      },
      {
        topic: table,
        numPartitions: 6,
        configEntries: [{ name: 'cleanup.policy', value: 'compact' }],
      },
    ]);
    expect(created).toBe(true);
    expect(await admin.createTopics({ topics: [{ topic: events, numPartitions: 6 }] })).toBe(false);
    expect(await admin.listTopics()).toEqual(expect.arrayContaining([events, table]));
    const metadata = await admin.fetchTopicMetadata({ topics: [events] });
    expect(metadata.topics[0].partitions).toHaveLength(6);

    const missing = topicName('missing');
    const impatient = new Kafka({
      clientId: 'kafka-broker-test-impatient',
      brokers: [broker.bootstrap],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    }).admin();
    await impatient.connect();
    try {
      await expect(impatient.fetchTopicMetadata({ topics: [missing] })).rejects.toThrow(
        /does not host this topic-partition/,
      );
    } finally {
      await impatient.disconnect();
    }
    expect(await admin.listTopics()).not.toContain(missing);
  });

  it("refuses kpm's topics when they drifted, naming topic, setting, expected and actual", async () => {
    const prefix = topicName('drift');
    const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    const topics = new TopicAdmin(kafka);
    const local = {
      topicPrefix: prefix,
      partitions: 3,
      replicationFactor: 1,
      minInsyncReplicas: 1,
    };
    expect((await topics.ensure(kpmTopicSpecs(local))).every((t) => t.created)).toBe(true);
    expect((await topics.ensure(kpmTopicSpecs(local))).some((t) => t.created)).toBe(false);
    // Someone turns the compacted table into a delete topic (its other configs as kpm set them).
    const processes = kpmTopicSpecs(local).find((spec) => spec.id === 'processes')!;
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: processes.topic,
          configEntries: processes.configEntries.map((entry) =>
            entry.name === 'cleanup.policy' ? { ...entry, value: 'delete' } : entry,
          ),
        },
      ],
    });
    // AlterConfigs returns once the KRaft controller committed the change; the broker applies it
    // to its own metadata image a moment later, and DescribeConfigs answers from that image.
    await eventually(
      async () => (await topicConfig(admin, processes.topic, 'cleanup.policy')) === 'delete',
      { what: 'cleanup.policy delete', timeoutMs: 10_000, everyMs: 200 },
    );
    const cases: Array<[Parameters<typeof kpmTopicSpecs>[0], string[]]> = [
      [local, [`topic ${prefix}.processes: cleanup.policy is delete, kpm expects compact`]],
      [{ ...local, partitions: 6 }, [`topic ${prefix}.commands: partitions is 3, kpm expects 6`]],
      [
        { ...local, replicationFactor: 3, minInsyncReplicas: 2 },
        [
          `topic ${prefix}.terminations: replication.factor is 1, kpm expects 3`,
          `topic ${prefix}.completions: min.insync.replicas is 1, kpm expects 2`,
        ],
      ],
    ];
    try {
      for (const [settings, lines] of cases) {
        const failure = await topics.ensure(kpmTopicSpecs(settings)).catch((e: unknown) => e);
        expect(failure).toBeInstanceOf(TopicDriftError);
        for (const line of lines) expect((failure as Error).message).toContain(line);
      }
    } finally {
      await admin.deleteTopics({ topics: kpmTopicSpecs(local).map((spec) => spec.topic) });
    }
  });

  it('delivers keyed records through a consumer group, in order per key, from committed offsets', async () => {
    const topic = topicName('keyed');
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 6 }]);
    // Idempotent like kpm's own producer, so a retried send cannot duplicate a record.
    const producer = await clients.producer({ idempotent: true, maxInFlightRequests: 1 });
    const keys = ['session-a', 'session-b', 'session-c'];
    for (let i = 0; i < 10; i++) {
      await producer.send({
        topic,
        acks: -1,
        messages: keys.map((key) => ({ key, value: `${key}:${i}` })),
      });
    }

    const groupId = topicName('group');
    const consumer = await clients.consumer({ groupId }, topic);
    const received = await consumeUntil(consumer, (all) => all.length === 30);
    for (const key of keys) {
      const ofKey = received.filter((record) => record.key === key);
      expect(new Set(ofKey.map((record) => record.partition)).size).toBe(1);
      expect(valuesOf(ofKey)).toEqual(Array.from({ length: 10 }, (_, i) => `${key}:${i}`));
    }
    const next = new Map(received.map((r) => [r.partition, Number(r.message.offset) + 1]));
    await consumer.commitOffsets(
      [...next].map(([partition, offset]) => ({ topic, partition, offset: String(offset) })),
    );
    await consumer.stop();
    await expectCommittedAtEnd(admin, groupId, topic);

    // A new member of the group resumes after the committed offsets: it sees only the new record.
    await producer.send({
      topic,
      acks: -1,
      messages: [{ key: 'session-a', value: 'after-commit' }],
    });
    const resumed = await clients.consumer({ groupId }, topic);
    expect(valuesOf(await consumeUntil(resumed, (all) => all.length >= 1))).toEqual([
      'after-commit',
    ]);
  });

  it('accepts an idempotent producer: one producer id, sequenced, no duplicates', async () => {
    const topic = topicName('idempotent');
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 1 }]);
    const producer = await clients.producer({ idempotent: true, maxInFlightRequests: 1 });
    for (let batch = 0; batch < 5; batch++) {
      const messages = Array.from({ length: 10 }, (_, i) => ({
        key: 'k',
        value: String(batch * 10 + i),
      }));
      await producer.send({ topic, acks: -1, messages });
    }
    const consumer = await clients.consumer({ groupId: topicName('idempotent-reader') }, topic);
    const received = await consumeUntil(consumer, (all) => all.length === 50);
    expect(valuesOf(received)).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
    expect(received.map((record) => Number(record.message.offset))).toEqual(
      Array.from({ length: 50 }, (_, i) => i),
    );
    const producerIds = new Set(
      received.map((record) => batchContextOf(record.message).producerId),
    );
    expect(producerIds.size).toBe(1);
    expect(Number([...producerIds][0])).toBeGreaterThanOrEqual(0);
    expect(batchContextOf(received[0].message).firstSequence).toBe(0);
  });

  it('runs consume-transform-produce transactions with the consumed offsets in them', async () => {
    const input = topicName('tx-in');
    const output = topicName('tx-out');
    await createTopicsWithLeaders(admin, [
      { topic: input, numPartitions: 3 },
      { topic: output, numPartitions: 3 },
    ]);
    // Idempotent: a retried send on a fresh broker must not duplicate inputs (it once did, and
    // the processor then stopped at 12 records with duplicates still unread).
    const source = await clients.producer({ idempotent: true, maxInFlightRequests: 1 });
    const inputs = Array.from({ length: 12 }, (_, i) => ({
      key: `session-${i % 4}`,
      value: `event-${i}`,
    }));
    await source.send({ topic: input, acks: -1, messages: inputs });

    const groupId = topicName('tx-processor');
    const transactional = await clients.producer({
      transactionalId: topicName('tx-processor'),
      idempotent: true,
      maxInFlightRequests: 1,
    });
    const processor = await clients.consumer({ groupId }, input);
    let processed = 0;
    await new Promise<void>((resolve, reject) => {
      processor.on(processor.events.CRASH, (event) => reject(event.payload.error));
      processor
        .run({
          autoCommit: false,
          eachMessage: async ({ topic, partition, message }) => {
            const transaction = await transactional.transaction();
            try {
              await transaction.send({
                topic: output,
                messages: [{ key: message.key, value: String(message.value).toUpperCase() }],
              });
              await transaction.sendOffsets({
                consumerGroupId: groupId,
                topics: [
                  {
                    topic,
                    partitions: [{ partition, offset: String(Number(message.offset) + 1) }],
                  },
                ],
              });
              await transaction.commit();
            } catch (error) {
              await transaction.abort();
              throw error;
            }
            if (++processed === inputs.length) resolve();
          },
        })
        .catch(reject);
    });
    await processor.stop();

    // The group's offsets were committed by the transactions alone (autoCommit is off).
    await expectCommittedAtEnd(admin, groupId, input);

    const reader = await clients.consumer({ groupId: topicName('tx-reader') }, output);
    const received = await consumeUntil(reader, (all) => all.length === inputs.length);
    expect(valuesOf(received).sort()).toEqual(inputs.map((m) => m.value.toUpperCase()).sort());
    expect(received.every((record) => batchContextOf(record.message).inTransaction)).toBe(true);
  });

  it('hides an aborted transaction from read_committed consumers', async () => {
    const topic = topicName('tx-abort');
    await createTopicsWithLeaders(admin, [{ topic, numPartitions: 1 }]);
    const producer = await clients.producer({
      transactionalId: topicName('tx-abort'),
      idempotent: true,
      maxInFlightRequests: 1,
    });
    const aborted = await producer.transaction();
    await aborted.send({
      topic,
      messages: [
        { key: 's', value: 'aborted-1' },
        { key: 's', value: 'aborted-2' },
      ],
    });
    await aborted.abort();
    const committed = await producer.transaction();
    await committed.send({ topic, messages: [{ key: 's', value: 'committed-1' }] });
    await committed.commit();

    const sawCommit = (all: Received[]) => all.some((record) => record.value === 'committed-1');
    // kafkajs reads committed by default (isolation level READ_COMMITTED).
    const readCommitted = await clients.consumer({ groupId: topicName('rc') }, topic);
    expect(valuesOf(await consumeUntil(readCommitted, sawCommit))).toEqual(['committed-1']);
    // The aborted records are in the log: a read_uncommitted consumer sees them.
    const readUncommitted = await clients.consumer(
      { groupId: topicName('ru'), readUncommitted: true },
      topic,
    );
    expect(valuesOf(await consumeUntil(readUncommitted, sawCommit))).toEqual([
      'aborted-1',
      'aborted-2',
      'committed-1',
    ]);
  });
});

describe('a broker in a fresh KPM_HOME', () => {
  const previousHome = process.env.KPM_HOME;
  let home: string;

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'kpm-kafka-test-'));
  });

  afterAll(() => {
    if (previousHome === undefined) delete process.env.KPM_HOME;
    else process.env.KPM_HOME = previousHome;
    rmSync(home, { recursive: true, force: true });
  });

  it('provisions on first up, stops on down, and restarts with the same data', async () => {
    process.env.KPM_HOME = home;
    const [port, controllerPort] = await freePorts(2);
    const env = {
      ...process.env,
      KPM_KAFKA_PORT: String(port),
      KPM_KAFKA_CONTROLLER_PORT: String(controllerPort),
    };
    const broker = new KafkaBroker({ env });
    try {
      expect((await broker.status()).detail).toBe('not provisioned');
      expect(await broker.up()).toMatchObject({ KPM_KAFKA_BROKERS: `127.0.0.1:${port}` });
      expect(existsSync(broker.settings.libsDir)).toBe(true);
      const clusterId = formattedClusterId(broker.settings);
      const topic = topicName('durable');
      const first = clientsFor(broker.bootstrap);
      const admin = await first.admin();
      await createTopicsWithLeaders(admin, [{ topic, numPartitions: 1 }]);
      await (
        await first.producer()
      ).send({ topic, acks: -1, messages: [{ key: 'k', value: 'before-restart' }] });
      await first.closeAll();

      await broker.down();
      expect((await broker.status()).running).toBe(false);
      await broker.down(); // stopping a stopped broker is fine

      await broker.up();
      expect(formattedClusterId(broker.settings)).toBe(clusterId);
      const second = clientsFor(broker.bootstrap);
      try {
        expect((await (await second.admin()).describeCluster()).clusterId).toBe(clusterId);
        const reader = await second.consumer({ groupId: topicName('durable-reader') }, topic);
        expect(valuesOf(await consumeUntil(reader, (all) => all.length >= 1))).toEqual([
          'before-restart',
        ]);
      } finally {
        await second.closeAll();
      }
    } finally {
      await broker.down();
    }
  }, 300_000);
});

async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, async () => {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    }),
  );
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}
