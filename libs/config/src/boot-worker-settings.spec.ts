import { loadSettings } from './load-settings';
import { yamlFile } from './yaml-file.spec-helper';

describe('boot-worker settings', () => {
  it("starts from drunc's defaults", () => {
    const { podManagement, volumes, homePathBase } = loadSettings('boot-worker', {});
    expect(podManagement).toMatchObject({
      killTimeoutSeconds: 30,
      podReadyTimeoutSeconds: 60,
      headlessDiscoveryPort: 80,
      hostCacheExpirySeconds: 300,
      allowedImages: ['*'],
      allowPrivileged: false,
      assignNodes: true,
    });
    expect(volumes).toEqual([]);
    expect(homePathBase).toBeUndefined();
    expect(loadSettings('boot-worker', {}).commands.maxInFlight).toBe(64);
  });

  it.each([
    [{ KPM_COMMANDS_MAX_IN_FLIGHT: '8' }, 8],
    [{ KPM_CONFIG: yamlFile('commands:\n  maxInFlight: 3\n') }, 3],
  ])('reads commands.maxInFlight from %p', (env, expected) => {
    expect(loadSettings('boot-worker', env).commands.maxInFlight).toBe(expected);
  });

  it.each(['0', '10001', '2.5'])('names commands.maxInFlight when it is %p', (raw) => {
    expect(() => loadSettings('boot-worker', { KPM_COMMANDS_MAX_IN_FLIGHT: raw })).toThrow(
      /commands\.maxInFlight/,
    );
  });

  it('reads podManagement, volumes and homePathBase from YAML, then KPM_* variables', () => {
    const file = yamlFile(
      [
        'podManagement:',
        '  killTimeoutSeconds: 10',
        '  allowedImages: ["ghcr.io/dune-daq/*"]',
        'volumes:',
        '  - {name: cvmfs, mountPath: /cvmfs, hostPath: /cvmfs, readOnly: true}',
        'homePathBase: /nfs/home',
      ].join('\n'),
    );
    const settings = loadSettings('boot-worker', {
      KPM_CONFIG: file,
      KPM_BOOT_CONCURRENCY: '8',
      KPM_ALLOW_PRIVILEGED: 'true',
    });
    expect(settings.podManagement.killTimeoutSeconds).toBe(10);
    expect(settings.podManagement.bootConcurrency).toBe(8);
    expect(settings.podManagement.allowPrivileged).toBe(true);
    expect(settings.podManagement.allowedImages).toEqual(['ghcr.io/dune-daq/*']);
    expect(settings.volumes).toEqual([
      { name: 'cvmfs', mountPath: '/cvmfs', hostPath: '/cvmfs', readOnly: true },
    ]);
    expect(settings.homePathBase).toBe('/nfs/home');
  });

  it('names the bad setting', () => {
    expect(() => loadSettings('boot-worker', { KPM_KILL_TIMEOUT_SECONDS: '-1' })).toThrow(
      /podManagement\.killTimeoutSeconds/,
    );
    const file = yamlFile('volumes:\n  - {name: x, mountPath: /a/../etc, hostPath: /x}\n');
    expect(() => loadSettings('boot-worker', { KPM_CONFIG: file })).toThrow(
      /volumes\.0\.mountPath: mountPath must be an absolute path without "\.\." segments/,
    );
    expect(() => loadSettings('boot-worker', { KPM_HOME_PATH_BASE: 'home' })).toThrow(
      /homePathBase/,
    );
  });

  it('keeps pods safe by default: host path prefixes, no capabilities, no caps on resources', () => {
    const { podManagement } = loadSettings('boot-worker', {});
    expect(podManagement).toMatchObject({
      hostPathPrefixes: ['/log', '/var/log/daq', '/data', '/home'],
      allowedCapabilities: [],
    });
    expect(podManagement.maxCpu).toBeUndefined();
    expect(podManagement.maxProcessesPerBoot).toBeUndefined();
  });

  it.each([
    ['KPM_HOST_PATH_PREFIXES', '/srv/daq, /scratch', 'hostPathPrefixes', ['/srv/daq', '/scratch']],
    [
      'KPM_ALLOWED_CAPABILITIES',
      'NET_ADMIN,SYS_NICE',
      'allowedCapabilities',
      ['NET_ADMIN', 'SYS_NICE'],
    ],
    ['KPM_MAX_CPU', '8', 'maxCpu', '8'],
    ['KPM_MAX_MEMORY', '32Gi', 'maxMemory', '32Gi'],
    ['KPM_MAX_PROCESSES_PER_BOOT', '200', 'maxProcessesPerBoot', 200],
  ])('reads %s', (variable, raw, field, value) => {
    const { podManagement } = loadSettings('boot-worker', { [variable]: raw });
    expect(podManagement[field as keyof typeof podManagement]).toEqual(value);
  });

  it.each([
    ['KPM_HOST_PATH_PREFIXES', '/', /hostPathPrefixes/],
    ['KPM_HOST_PATH_PREFIXES', 'data', /hostPathPrefixes/],
    ['KPM_HOST_PATH_PREFIXES', '/data/../etc', /hostPathPrefixes/],
    ['KPM_ALLOWED_CAPABILITIES', 'all', /allowedCapabilities/],
    ['KPM_MAX_CPU', 'lots', /maxCpu/],
    ['KPM_MAX_PROCESSES_PER_BOOT', '0', /maxProcessesPerBoot/],
  ])('refuses %s=%s', (variable, raw, why) => {
    expect(() => loadSettings('boot-worker', { [variable]: raw })).toThrow(why);
  });
});
