import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import {
  druncConfigurationReport,
  fromDruncConfiguration,
  isDruncConfiguration,
} from './drunc-settings';
import { druncConfigurationEvents, loadSettings } from './load-settings';
import { yamlFile } from './yaml-file.spec-helper';

/** drunc's process-manager configuration for Kubernetes, as drunc reads it (JSON is YAML). */
const DRUNC_FILE = resolve(__dirname, '../../../examples/drunc-k8s-process-manager.json');
/** Shaped as the K8s configuration DUNE ships for CERN (every key it has, each of its kind). */
const CERN_FILE = resolve(__dirname, '../../../examples/drunc-k8s-cern.json');

describe("drunc's process-manager configuration as-is", () => {
  it('loads the drunc file unchanged, with drunc defaults for what it leaves out', () => {
    const settings = loadSettings('boot-worker', { KPM_CONFIG: DRUNC_FILE });
    expect(settings.labels.domain).toBe('drunc.daq');
    expect(settings.podManagement).toMatchObject({
      headlessDiscoveryPort: 31000,
      killTimeoutSeconds: 11, // 10.5 rounded up: a timeout never shortens
      podReadyTimeoutSeconds: 45,
      restartCleanupSeconds: 10, // drunc's default, not kpm's 30
      hostCacheExpirySeconds: 120,
    });
    expect(settings.watcher.watcherRetrySleepSeconds).toBe(5);
    expect(settings.homePathBase).toBe('/nfs/home');
    expect(settings.volumes).toEqual([
      { name: 'data', mountPath: '/data', hostPath: '/srv/data', readOnly: true },
    ]);
  });

  it.each<[string, string, string, unknown]>([
    ['kill_timeout', 'pod_management:\n    kill_timeout: 7', 'podManagement.killTimeoutSeconds', 7],
    ['no pod_management: drunc 30', 'labels: {}', 'podManagement.killTimeoutSeconds', 30],
    ['no pod_ready_timeout: drunc 60', 'labels: {}', 'podManagement.podReadyTimeoutSeconds', 60],
    ['no cleanup: drunc 10', 'labels: {}', 'podManagement.restartCleanupSeconds', 10],
    [
      'restart_cleanup_time 2.5',
      'cleanup:\n    restart_cleanup_time: 2.5',
      'podManagement.restartCleanupSeconds',
      3,
    ],
    ['no service: drunc 80', 'labels: {}', 'podManagement.headlessDiscoveryPort', 80],
    ['no checking: drunc 300', 'labels: {}', 'podManagement.hostCacheExpirySeconds', 300],
    ['drunc_label', 'labels:\n    drunc_label: np04.daq', 'labels.domain', 'np04.daq'],
    ['no home_path_base', 'labels: {}', 'homePathBase', undefined],
    [
      'connection_server_node_port',
      'connection_server_node_port: 30500',
      'podManagement.connectionServerNodePort',
      30500,
    ],
    ['no connection_server_port: 5000', 'labels: {}', 'podManagement.connectionServerPort', 5000],
    [
      'readout_app_selector',
      'readout_app_selector: readout',
      'podManagement.readoutAppSelector',
      'readout',
    ],
    ['no readout_app_selector: runp', 'labels: {}', 'podManagement.readoutAppSelector', 'runp'],
  ])('%s', (_, settingsYaml, path, value) => {
    const file = yamlFile(`type: k8s\nsettings:\n  ${settingsYaml}\n`);
    const settings = loadSettings('boot-worker', { KPM_CONFIG: file }) as unknown as Record<
      string,
      Record<string, unknown>
    >;
    const [section, key] = path.includes('.') ? path.split('.') : [undefined, path];
    const actual = section ? settings[section][key] : (settings as Record<string, unknown>)[key];
    expect(actual).toEqual(value);
  });

  it("lets kpm's own names in the same file and KPM_* variables win", () => {
    const file = yamlFile(
      'settings:\n  pod_management:\n    kill_timeout: 12\n    pod_ready_timeout: 40\n' +
        'podManagement:\n  killTimeoutSeconds: 20\n',
    );
    const settings = loadSettings('boot-worker', {
      KPM_CONFIG: file,
      KPM_POD_READY_TIMEOUT_SECONDS: '50',
    });
    expect(settings.podManagement.killTimeoutSeconds).toBe(20);
    expect(settings.podManagement.podReadyTimeoutSeconds).toBe(50);
    expect(settings.podManagement.restartCleanupSeconds).toBe(10);
  });

  it.each<[string, string, RegExp]>([
    [
      'a string timeout',
      'pod_management:\n    kill_timeout: soon',
      /settings\.pod_management\.kill_timeout: must be a number of seconds/,
    ],
    [
      'a fractional port',
      'service:\n    headless_discovery_port: 80.5',
      /settings\.service\.headless_discovery_port: must be an integer/,
    ],
    [
      'a numeric label domain',
      'labels:\n    drunc_label: 7',
      /settings\.labels\.drunc_label: must be a string/,
    ],
    ['volumes not a list', 'volumes: data', /settings\.volumes: must be a list/],
    [
      'a volume without its host path',
      'volumes:\n    - { name: data, mount_path: /data }',
      /volumes\.0\.hostPath/,
    ],
    ['a relative home_path_base', 'home_path_base: home', /homePathBase: .*absolute path/],
    [
      'a timeout kpm bounds',
      'pod_management:\n    pod_ready_timeout: 0',
      /podManagement\.podReadyTimeoutSeconds/,
    ],
  ])('refuses %s, naming the setting', (_, settingsYaml, message) => {
    const file = yamlFile(`settings:\n  ${settingsYaml}\n`);
    expect(() => loadSettings('boot-worker', { KPM_CONFIG: file })).toThrow(message);
  });

  it("reads a file without drunc's `settings` as kpm's own", () => {
    expect(isDruncConfiguration({ podManagement: {} })).toBe(false);
    expect(isDruncConfiguration({ settings: {} })).toBe(true);
    const file = yamlFile('podManagement:\n  killTimeoutSeconds: 9\n');
    const settings = loadSettings('boot-worker', { KPM_CONFIG: file });
    expect(settings.podManagement.killTimeoutSeconds).toBe(9);
    expect(settings.podManagement.restartCleanupSeconds).toBe(30); // kpm's default stays kpm's
  });

  it("leaves the rest of drunc's configuration aside and keeps kpm sections apart", () => {
    const { fromDrunc, own } = fromDruncConfiguration(
      { type: 'k8s', broadcaster: {}, settings: {}, kafka: { partitions: 3 } },
      'test',
    );
    expect(Object.keys(fromDrunc).sort()).toEqual(['labels', 'podManagement', 'watcher']);
    expect(own).toEqual({ kafka: { partitions: 3 } });
  });

  it('loads the file DUNE ships for CERN unchanged and applies image, host_configs, volumes', () => {
    const settings = loadSettings('boot-worker', { KPM_CONFIG: CERN_FILE });
    expect(settings.podManagement).toMatchObject({
      image: 'ghcr.io/dune-daq/alma9:latest',
      killTimeoutSeconds: 120,
      podReadyTimeoutSeconds: 60,
      restartCleanupSeconds: 10,
      readoutAppSelector: 'runp',
      socketRetryTimeoutSeconds: 1,
      serviceStartupTimeoutSeconds: 30, // drunc's default: the file does not set it
    });
    expect(settings.podManagement.hostConfigs['np04-srv-031']).toEqual({
      limits: { 'hugepages-2Mi': '32Gi', cpu: '128', memory: '1024Gi' },
      requests: { 'hugepages-2Mi': '32Gi', cpu: '32', memory: '256Gi' },
    });
    expect(settings.homePathBase).toBe('/nfs/home');
    expect(settings.volumes.map((v) => [v.name, v.readOnly])).toEqual([
      ['nfs', false],
      ['cvmfs', true],
      ['hugepages', false],
      ['vfio', false],
      ['intel-firmware', true],
    ]);
  });

  it('names every key of the CERN file as applied or as having no effect, none unknown', () => {
    const file = JSON.parse(readFileSync(CERN_FILE, 'utf8')) as Record<string, unknown>;
    const report = druncConfigurationReport(file);
    expect(report.unknown).toEqual([]);
    expect(report.applied.sort()).toEqual(
      [
        'image',
        'settings.labels.drunc_label',
        'settings.home_path_base',
        'settings.service.headless_discovery_port',
        'settings.pod_management.kill_timeout',
        'settings.pod_management.pod_ready_timeout',
        'settings.cleanup.restart_cleanup_time',
        'settings.checking.watcher_retry_sleep',
        'settings.checking.host_cache_expiry',
        'settings.checking.socket_retry_timeout',
        'settings.readout_app_selector',
        'settings.host_configs',
        'settings.volumes',
      ].sort(),
    );
    expect(report.withoutEffect.map((w) => w.key).sort()).toEqual(
      [
        'type',
        'name',
        'command_address',
        'authoriser',
        'environment',
        'opmon_uri',
        'opmon_conf',
        'host',
        'port',
        'settings.cleanup.restart_cleanup_polling',
        'settings.checking.pod_status_check_sleep',
        'settings.checking.grpc_startup_timeout',
      ].sort(),
    );
    for (const { reason } of report.withoutEffect) expect(reason.length).toBeGreaterThan(10);
  });

  it('reports keys drunc does not know either as unknown (drunc warns and discards them)', () => {
    const report = druncConfigurationReport({
      settings: { some_future_setting: true, checking: { nope: 1 }, labels: { app: 'x' } },
      mystery: 1,
    });
    expect(report.unknown.sort()).toEqual([
      'mystery',
      'settings.checking.nope',
      'settings.some_future_setting',
    ]);
    expect(report.withoutEffect.map((w) => w.key)).toEqual(['settings.labels.app']);
  });

  it('stringifies host_configs quantities as drunc does, and refuses a wrong one by name', () => {
    const ok = yamlFile(
      'settings:\n  host_configs:\n    np04-srv-031:\n      limits: { cpu: 64, memory: 512Gi }\n',
    );
    expect(loadSettings('boot-worker', { KPM_CONFIG: ok }).podManagement.hostConfigs).toEqual({
      'np04-srv-031': { limits: { cpu: '64', memory: '512Gi' } },
    });
    const bad = yamlFile(
      'settings:\n  host_configs:\n    np04-srv-031:\n      limits: { cpu: lots }\n',
    );
    expect(() => loadSettings('boot-worker', { KPM_CONFIG: bad })).toThrow(
      /hostConfigs\.np04-srv-031\.limits\.cpu: "lots" is not a Kubernetes quantity/,
    );
    const notMap = yamlFile('settings:\n  host_configs: [a]\n');
    expect(() => loadSettings('boot-worker', { KPM_CONFIG: notMap })).toThrow(
      /settings\.host_configs: must map host names/,
    );
  });

  it.each<[string, string, string, unknown]>([
    ['image', 'image: x/y:1\nsettings: {}', 'image', 'x/y:1'],
    [
      'service_startup_timeout',
      'settings:\n  checking: { service_startup_timeout: 12 }',
      'serviceStartupTimeoutSeconds',
      12,
    ],
    [
      "an older drunc's connection_server.name",
      'settings:\n  connection_server: { name: lcs }',
      'connectionServerName',
      'lcs',
    ],
  ])('applies %s', (_, yaml, key, value) => {
    const settings = loadSettings('boot-worker', { KPM_CONFIG: yamlFile(`${yaml}\n`) });
    expect((settings.podManagement as unknown as Record<string, unknown>)[key]).toEqual(value);
  });

  it('says at start what each key of a drunc file does, one event each', () => {
    const events = druncConfigurationEvents({ KPM_CONFIG: CERN_FILE });
    expect(events[0]).toMatchObject({
      event: 'drunc_config.applied',
      file: CERN_FILE,
      keys: expect.arrayContaining(['image']),
    });
    expect(events).toContainEqual({
      message: 'drunc_config.no_effect',
      event: 'drunc_config.no_effect',
      file: CERN_FILE,
      key: 'settings.checking.grpc_startup_timeout',
      reason:
        "not read by drunc's newest process manager either (podManagement.serviceStartupTimeoutSeconds is checking.service_startup_timeout)",
    });
    const unknown = yamlFile('settings:\n  some_future_setting: 1\n');
    expect(druncConfigurationEvents({ KPM_CONFIG: unknown })).toContainEqual(
      expect.objectContaining({
        event: 'drunc_config.discarded',
        key: 'settings.some_future_setting',
      }),
    );
    expect(druncConfigurationEvents({ KPM_CONFIG: yamlFile('podManagement: {}\n') })).toEqual([]);
    expect(druncConfigurationEvents({})).toEqual([]);
  });
});
