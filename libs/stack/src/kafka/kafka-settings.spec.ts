import { kafkaClientEnv, kafkaNodesSettings } from './kafka-settings';

describe('kafkaNodesSettings', () => {
  it.each([
    [{}, [[1, 19092, 19093, 'kafka']], '1@127.0.0.1:19093', 1, 1],
    [
      { KPM_KAFKA_PORT: '29000', KPM_KAFKA_CONTROLLER_PORT: '29500' },
      [[1, 29000, 29500, 'kafka']],
      '1@127.0.0.1:29500',
      1,
      1,
    ],
    [
      { KPM_KAFKA_BROKERS_COUNT: '3', KPM_KAFKA_PORT: '29000' },
      [
        [1, 29000, 29001, 'kafka-1'],
        [2, 29002, 29003, 'kafka-2'],
        [3, 29004, 29005, 'kafka-3'],
      ],
      '1@127.0.0.1:29001,2@127.0.0.1:29003,3@127.0.0.1:29005',
      3,
      2,
    ],
    [
      { KPM_KAFKA_BROKERS_COUNT: '2' },
      [
        [1, 19092, 19093, 'kafka-1'],
        [2, 19094, 19095, 'kafka-2'],
      ],
      '1@127.0.0.1:19093,2@127.0.0.1:19095',
      2,
      1,
    ],
  ])('%j: nodes, voters and replication', (env, nodes, voters, factor, minIsr) => {
    const settings = kafkaNodesSettings(env);
    expect(settings.map((s) => [s.nodeId, s.port, s.controllerPort, s.daemonName])).toEqual(nodes);
    for (const node of settings) {
      expect(node.quorumVoters).toBe(voters);
      expect([node.replicationFactor, node.minInsyncReplicas]).toEqual([factor, minIsr]);
    }
    expect(new Set(settings.map((s) => s.dataDir)).size).toBe(settings.length);
  });

  it('keeps a cluster under KPM_KAFKA_HOME apart from the stack', () => {
    const [node] = kafkaNodesSettings({ KPM_KAFKA_BROKERS_COUNT: '3', KPM_KAFKA_HOME: '/k' });
    expect([node.dataDir, node.runDir, node.logsDir]).toEqual([
      '/k/data/kafka-1',
      '/k/run',
      '/k/logs',
    ]);
  });

  it.each([
    [
      { KPM_KAFKA_BROKERS_COUNT: '0' },
      /KPM_KAFKA_BROKERS_COUNT must be a whole number from 1 to 5, got "0"/,
    ],
    [{ KPM_KAFKA_BROKERS_COUNT: 'three' }, /KPM_KAFKA_BROKERS_COUNT must be a whole number/],
    [{ KPM_KAFKA_BROKERS_COUNT: '6' }, /from 1 to 5, got "6"/],
    [
      { KPM_KAFKA_BROKERS_COUNT: '3', KPM_KAFKA_CONTROLLER_PORT: '30000' },
      /KPM_KAFKA_CONTROLLER_PORT applies to one broker/,
    ],
    [{ KPM_KAFKA_BROKERS_COUNT: '3', KPM_KAFKA_PORT: '65532' }, /run past port 65535/],
  ])('refuses %j', (env, message) => {
    expect(() => kafkaNodesSettings(env)).toThrow(message);
  });

  it('gives clients every broker and the topics replication the cluster can hold', () => {
    const env = kafkaClientEnv(kafkaNodesSettings({ KPM_KAFKA_BROKERS_COUNT: '3' }));
    expect(env).toEqual({
      KPM_KAFKA_BROKERS: '127.0.0.1:19092,127.0.0.1:19094,127.0.0.1:19096',
      KPM_TOPIC_REPLICATION_FACTOR: '3',
      KPM_TOPIC_MIN_INSYNC_REPLICAS: '2',
    });
  });
});
