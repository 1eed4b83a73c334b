import { InvalidSettingsError, loadSettings } from './load-settings';
import { yamlFile } from './yaml-file.spec-helper';

describe('loadSettings', () => {
  it('starts from drunc defaults', () => {
    const settings = loadSettings('state', {});
    expect(settings.labels.domain).toBe('drunc.daq');
    expect(settings.kafka.partitions).toBe(6);
    expect(settings.service).toBe('state');
  });

  it('lets the YAML file and then KPM_* variables override', () => {
    const file = yamlFile(
      'kafka:\n  partitions: 3\n  topicPrefix: daq\nlabels:\n  domain: example.org\n',
    );
    const settings = loadSettings('watcher', {
      KPM_CONFIG: file,
      KPM_TOPIC_PREFIX: 'lab',
      KPM_KAFKA_BROKERS: 'a:1, b:2',
    });
    expect(settings.kafka.partitions).toBe(3);
    expect(settings.kafka.topicPrefix).toBe('lab');
    expect(settings.kafka.brokers).toEqual(['a:1', 'b:2']);
    expect(settings.labels.domain).toBe('example.org');
  });

  it('names the offending setting', () => {
    expect(() => loadSettings('state', { KPM_TOPIC_PARTITIONS: '0' })).toThrow(
      /kafka\.partitions: partitions must not be less than 1/,
    );
    expect(() => loadSettings('state', { KPM_KAFKA_BROKERS: 'nohost' })).toThrow(
      /kafka\.brokers: each broker must be host:port/,
    );
  });

  it("reads the watcher's node check period, and names a bad one", () => {
    const every = (yaml: string) =>
      loadSettings('watcher', { KPM_CONFIG: yamlFile(yaml) }).watcher.nodeCheckSeconds;
    expect(loadSettings('watcher', {}).watcher.nodeCheckSeconds).toBe(5);
    expect(every('watcher:\n  nodeCheckSeconds: 0\n')).toBe(0);
    expect(() => every('watcher:\n  nodeCheckSeconds: -5\n')).toThrow(
      /watcher\.nodeCheckSeconds: nodeCheckSeconds must not be less than 0/,
    );
  });

  it.each([
    [{}, 3, 2],
    [{ KPM_TOPIC_REPLICATION_FACTOR: '1', KPM_TOPIC_MIN_INSYNC_REPLICAS: '1' }, 1, 1],
    [{ KPM_TOPIC_REPLICATION_FACTOR: '5', KPM_TOPIC_MIN_INSYNC_REPLICAS: '3' }, 5, 3],
  ])('topic replication from %j: factor %d, min.insync.replicas %d', (env, factor, minIsr) => {
    const { kafka } = loadSettings('state', env);
    expect([kafka.replicationFactor, kafka.minInsyncReplicas]).toEqual([factor, minIsr]);
  });

  it.each([
    [
      { KPM_TOPIC_REPLICATION_FACTOR: '0' },
      /kafka\.replicationFactor: replicationFactor must not be less than 1/,
    ],
    [
      { KPM_TOPIC_MIN_INSYNC_REPLICAS: '0' },
      /kafka\.minInsyncReplicas: minInsyncReplicas must not be less than 1/,
    ],
    [
      { KPM_TOPIC_REPLICATION_FACTOR: '1' },
      /kafka\.minInsyncReplicas: minInsyncReplicas must not exceed replicationFactor/,
    ],
  ])('refuses topic replication %j', (env, message) => {
    expect(() => loadSettings('state', env)).toThrow(message);
  });

  it('rejects unknown settings in the file instead of ignoring a typo', () => {
    const file = yamlFile('kafka:\n  partitons: 3\n');
    expect(() => loadSettings('state', { KPM_CONFIG: file })).toThrow(InvalidSettingsError);
    expect(() => loadSettings('state', { KPM_CONFIG: file })).toThrow(/kafka\.partitons/);
  });

  it('reports a file that is not a mapping', () => {
    const file = yamlFile('- just\n- a list\n');
    expect(() => loadSettings('state', { KPM_CONFIG: file })).toThrow(/must hold a mapping/);
  });

  describe.each([
    ['labels.domain', 'KPM_LABEL_DOMAIN'],
    ['watcher.leaseName', 'KPM_LEASE_NAME'],
  ])('%s is a DNS subdomain', (path, variable) => {
    it.each(['drunc.daq', 'kpm-watcher.drunc.daq', 'a'])('accepts %s', (value) => {
      expect(() => loadSettings('watcher', { [variable]: value })).not.toThrow();
    });
    it.each(['Drunc.daq', 'drunc..daq', '-drunc.daq', 'drunc.daq-', 'drunc_daq'])(
      'rejects %s, naming the setting',
      (value) => {
        expect(() => loadSettings('watcher', { [variable]: value })).toThrow(
          new RegExp(`${path.replace('.', '\\.')}: .*DNS subdomain`),
        );
      },
    );
  });
});
