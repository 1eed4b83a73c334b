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
    ['KPM_CONTROLLER_READINESS_PROBE', 'grpc', 'controllerReadinessProbe', 'grpc'],
    ['KPM_NODE_LOST_SECONDS', '0', 'nodeLostSeconds', 0],
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
    [
      'KPM_NODE_LOST_SECONDS',
      '-1',
      /podManagement\.nodeLostSeconds: nodeLostSeconds must not be less than 0/,
    ],
    [
      'KPM_NODE_LOST_SECONDS',
      '2.5',
      /podManagement\.nodeLostSeconds: nodeLostSeconds must be an integer/,
    ],
    [
      'KPM_CONTROLLER_READINESS_PROBE',
      'http',
      /podManagement\.controllerReadinessProbe: controllerReadinessProbe must be one of none, tcp, grpc/,
    ],
  ])('refuses %s=%s', (variable, raw, why) => {
    expect(() => loadSettings('boot-worker', { [variable]: raw })).toThrow(why);
  });

  it("reads the readout profile: drunc's selector, none by default, page size 2Mi", () => {
    expect(loadSettings('boot-worker', {}).podManagement).toMatchObject({
      readoutAppSelector: 'runp',
      readoutProfile: undefined,
    });
    const file = yamlFile(
      'podManagement:\n  readoutAppSelector: ru\n  readoutProfile: {cpu: "8", memory: 16Gi, hugepages: 2Gi, hostNetwork: true}\n',
    );
    expect(loadSettings('boot-worker', { KPM_CONFIG: file }).podManagement).toMatchObject({
      readoutAppSelector: 'ru',
      readoutProfile: {
        cpu: '8',
        memory: '16Gi',
        hugepages: '2Gi',
        hugepagesPageSize: '2Mi',
        hostNetwork: true,
      },
    });
  });

  it.each([
    ['no cpu', '{memory: 16Gi}', /readoutProfile\.cpu: cpu must be a Kubernetes quantity/],
    ['no memory', '{cpu: "8"}', /readoutProfile\.memory: memory must be a Kubernetes quantity/],
    ['a bad hugepages', '{cpu: "8", memory: 1Gi, hugepages: lots}', /readoutProfile\.hugepages/],
    [
      'a page size Linux has not',
      '{cpu: "8", memory: 1Gi, hugepagesPageSize: 4Ki}',
      /readoutProfile\.hugepagesPageSize: hugepagesPageSize must be one of 2Mi, 1Gi/,
    ],
    ['a host network not yes or no', '{cpu: "8", memory: 1Gi, hostNetwork: maybe}', /hostNetwork/],
    ['an unknown key', '{cpu: "8", memory: 1Gi, gpus: 2}', /readoutProfile\.gpus/],
  ])('refuses a readout profile with %s, naming the field', (_, profile, why) => {
    const file = yamlFile(`podManagement:\n  readoutProfile: ${profile}\n`);
    expect(() => loadSettings('boot-worker', { KPM_CONFIG: file })).toThrow(why);
  });

  it('refuses an empty readout selector, which would select every process', () => {
    const file = yamlFile('podManagement:\n  readoutAppSelector: ""\n');
    expect(() => loadSettings('boot-worker', { KPM_CONFIG: file })).toThrow(
      /podManagement\.readoutAppSelector: readoutAppSelector must not be empty/,
    );
  });

  it('allows no uid or gid by default, and reads the ranges from YAML and KPM_RUN_AS_*_RANGE', () => {
    const { podManagement } = loadSettings('boot-worker', {});
    expect(podManagement.runAsUidRange).toBeUndefined();
    expect(podManagement.runAsGidRange).toBeUndefined();
    const file = yamlFile('podManagement:\n  runAsUidRange: {min: 1000, max: 60000}\n');
    const read = loadSettings('boot-worker', { KPM_CONFIG: file, KPM_RUN_AS_GID_RANGE: '100-200' });
    expect(read.podManagement.runAsUidRange).toEqual({ min: 1000, max: 60000 });
    expect(read.podManagement.runAsGidRange).toEqual({ min: 100, max: 200 });
  });

  it.each([
    [
      'KPM_RUN_AS_UID_RANGE',
      '0-100',
      /runAsUidRange\.min: min must be at least 1 \(root is never allowed\)/,
    ],
    ['KPM_RUN_AS_UID_RANGE', '2000-1000', /runAsUidRange\.max: max must not be below min/],
    ['KPM_RUN_AS_GID_RANGE', 'staff', /runAsGidRange\.min: min must be a whole number/],
    ['KPM_RUN_AS_GID_RANGE', '1-2147483648', /runAsGidRange\.max: max must be at most 2147483647/],
  ])('refuses %s=%s, naming the field', (variable, raw, why) => {
    expect(() => loadSettings('boot-worker', { [variable]: raw })).toThrow(why);
  });

  it("defaults to drunc's networking, readiness and readout, with nobody mapped to a uid", () => {
    expect(loadSettings('boot-worker', {}).podManagement).toMatchObject({
      network: 'host',
      nodePorts: true,
      nodePortRange: { min: 30000, max: 32767 },
      localhostAlias: 'cluster-ip',
      controllerReadinessProbe: 'tcp',
      reachabilityCheck: 'none',
      serviceStartupTimeoutSeconds: 30,
      controllerExecutables: ['drunc-controller'],
      runAsUsers: [],
      hostConfigs: {},
      readoutPrivileged: true,
    });
  });

  it('has no Kueue pod groups unless a ClusterQueue is named, then their defaults', () => {
    expect(loadSettings('boot-worker', {}).podManagement.kueue).toBeUndefined();
    const { kueue } = loadSettings('boot-worker', {
      KPM_ASSIGN_NODES: 'false',
      KPM_KUEUE_CLUSTER_QUEUE: 'daq-quota',
    }).podManagement;
    expect(kueue).toEqual({
      clusterQueue: 'daq-quota',
      localQueue: 'kpm',
      admissionTimeoutSeconds: 300,
    });
  });

  it.each<[Record<string, string>, RegExp]>([
    [
      { KPM_KUEUE_CLUSTER_QUEUE: 'daq' },
      /kueue: kueue needs assignNodes: false \(a pod Kueue holds behind its scheduling gate may not name its node/,
    ],
    [
      { KPM_KUEUE_CLUSTER_QUEUE: 'daq', KPM_ASSIGN_NODES: 'false', KPM_LOCALHOST_ALIAS: 'pod-ip' },
      /kueue needs localhostAlias cluster-ip or none/,
    ],
    [
      { KPM_KUEUE_CLUSTER_QUEUE: 'Daq Quota', KPM_ASSIGN_NODES: 'false' },
      /kueue\.clusterQueue: kueue\.clusterQueue must be a DNS subdomain/,
    ],
    [{ KPM_KUEUE_LOCAL_QUEUE: 'q', KPM_ASSIGN_NODES: 'false' }, /kueue\.clusterQueue/],
    [
      {
        KPM_KUEUE_CLUSTER_QUEUE: 'daq',
        KPM_ASSIGN_NODES: 'false',
        KPM_KUEUE_ADMISSION_TIMEOUT_SECONDS: '0',
      },
      /kueue\.admissionTimeoutSeconds/,
    ],
  ])('refuses Kueue pod groups with %p', (env, why) => {
    expect(() => loadSettings('boot-worker', env)).toThrow(why);
  });

  it('reads the drunc settings kpm adds from KPM_* variables', () => {
    const { podManagement } = loadSettings('boot-worker', {
      KPM_RUN_AS_USERS: 'alice:1000:1000, bob:1001:2000',
      KPM_DEFAULT_RUN_AS: '65534:65533',
      KPM_NETWORK: 'pod',
      KPM_NODE_PORTS: 'false',
      KPM_NODE_PORT_RANGE: '20000-20100',
      KPM_LOCALHOST_ALIAS: 'pod-ip',
      KPM_REACHABILITY_CHECK: 'pod-ip',
      KPM_CONTROLLER_EXECUTABLES: 'drunc-controller,my-controller',
      KPM_READOUT_PRIVILEGED: 'false',
      KPM_SERVICE_STARTUP_TIMEOUT_SECONDS: '5',
    });
    expect(podManagement).toMatchObject({
      runAsUsers: [
        { user: 'alice', uid: 1000, gid: 1000 },
        { user: 'bob', uid: 1001, gid: 2000 },
      ],
      defaultRunAs: { uid: 65534, gid: 65533 },
      network: 'pod',
      nodePorts: false,
      nodePortRange: { min: 20000, max: 20100 },
      localhostAlias: 'pod-ip',
      reachabilityCheck: 'pod-ip',
      controllerExecutables: ['drunc-controller', 'my-controller'],
      readoutPrivileged: false,
      serviceStartupTimeoutSeconds: 5,
    });
  });

  it.each<[Record<string, string>, RegExp]>([
    [{ KPM_RUN_AS_USERS: 'root:0:0' }, /runAsUsers\.0\.uid: uid must be at least 1/],
    [{ KPM_RUN_AS_USERS: 'alice:1000' }, /runAsUsers\.0\.gid/],
    [{ KPM_RUN_AS_USERS: 'no body:1000:1000' }, /runAsUsers\.0\.user: user must be a user name/],
    [{ KPM_DEFAULT_RUN_AS: '0:0' }, /defaultRunAs\.uid: uid must be at least 1 \(root is never/],
    [{ KPM_DEFAULT_RUN_AS: '1000:0' }, /defaultRunAs\.gid: gid must be at least 1 \(root is never/],
    [{ KPM_DEFAULT_RUN_AS: '1000' }, /defaultRunAs\.uid: uid must be a whole number/],
    [{ KPM_NODE_PORT_RANGE: '32000-31000' }, /nodePortRange\.max: max must not be below min/],
    [{ KPM_NETWORK: 'bridge' }, /network must be host or pod/],
    [{ KPM_LOCALHOST_ALIAS: 'dns' }, /localhostAlias must be one of cluster-ip, pod-ip, none/],
    [{ KPM_REACHABILITY_CHECK: 'ping' }, /reachabilityCheck must be one of/],
    [
      { KPM_CONFIG: yamlFile('podManagement:\n  hostConfigs: { "Bad Host": {} }\n') },
      /hostConfigs: "Bad Host" is not a node name/,
    ],
    [
      { KPM_CONFIG: yamlFile('podManagement:\n  hostConfigs: { h1: { limits: { cpu: "x" } } }\n') },
      /hostConfigs\.h1\.limits\.cpu: "x" is not a Kubernetes quantity/,
    ],
    [
      { KPM_CONFIG: yamlFile('podManagement:\n  hostConfigs: { h1: { extra: {} } }\n') },
      /hostConfigs\.h1\.extra: only limits and requests may be set/,
    ],
  ])('names the bad setting in %p', (env, message) => {
    expect(() => loadSettings('boot-worker', env)).toThrow(message);
  });

  it('mounts configured volumes read-only unless they say otherwise, as drunc', () => {
    const file = yamlFile(
      'volumes:\n  - {name: cvmfs, mountPath: /cvmfs, hostPath: /cvmfs}\n  - {name: nfs, mountPath: /nfs, hostPath: /nfs, readOnly: false}\n',
    );
    expect(
      loadSettings('boot-worker', { KPM_CONFIG: file }).volumes.map((v) => v.readOnly),
    ).toEqual([true, false]);
  });
});
