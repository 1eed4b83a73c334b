import { resolve } from 'node:path';
import { fromDruncConfiguration, isDruncConfiguration } from './drunc-settings';
import { loadSettings } from './load-settings';
import { yamlFile } from './yaml-file.spec-helper';

/** drunc's process-manager configuration for Kubernetes, as drunc reads it (JSON is YAML). */
const DRUNC_FILE = resolve(__dirname, '../../../examples/drunc-k8s-process-manager.json');

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
});
