import type { ProcessSpec } from '@kpm/contracts';
import {
  bootSizeErrors,
  containerSecurityContext,
  hostPathReason,
  isReservedKey,
  podSecurityContext,
  specPolicyErrors,
  type PodPolicy,
} from './pod-policy';

const PREFIXES = ['/log', '/data', '/home'];
const policy: PodPolicy = {
  domain: 'drunc.daq',
  hostPathPrefixes: PREFIXES,
  allowPrivileged: false,
  allowedCapabilities: [],
  maxCpu: '4',
  maxMemory: '8Gi',
  maxProcessesPerBoot: 100,
  readout: { readoutAppSelector: 'runp' },
  runAsUsers: [{ user: 'alice', uid: 1000, gid: 1000 }],
};
const spec = (extra: Partial<ProcessSpec>): ProcessSpec => ({
  name: 'ru-01',
  executableAndArguments: [{ exec: 'x', args: [] }],
  ...extra,
});

describe('hostPathReason', () => {
  it.each([
    ['/log/daq', undefined],
    ['/log', undefined],
    ['/data/run-7/', undefined],
    ['/home/alice', undefined],
    ['/log/../etc', 'would expose the node'],
    ['/', 'would expose the node'],
    ['/etc', 'would expose the node'],
    ['/etc/kubernetes', 'would expose the node'],
    ['/var/run', 'would expose the node'],
    ['/var/run/docker.sock', 'would expose the node'],
    ['/proc/1/root', 'would expose the node'],
    ['/sys', 'would expose the node'],
    ['/root', 'would expose the node'],
    ['/var/lib/kubelet/pods', 'would expose the node'],
    ['/logs', 'is not under an allowed host path prefix'],
    ['/opt/daq', 'is not under an allowed host path prefix'],
    ['//log//daq', undefined],
  ])('%s → %s', (path, why) => {
    const reason = hostPathReason(path, PREFIXES);
    if (why === undefined) expect(reason).toBeUndefined();
    else expect(reason).toEqual(expect.stringContaining(why));
    if (why)
      expect(reason).toContain('allowed: /log, /data, /home (podManagement.hostPathPrefixes)');
  });

  it('refuses the forbidden paths even under a configured prefix', () => {
    expect(hostPathReason('/etc/daq', ['/etc'])).toContain('would expose the node');
    expect(hostPathReason('/srv', ['/'])).toBeUndefined();
    expect(hostPathReason('/', ['/'])).toContain('would expose the node');
  });
});

describe('isReservedKey', () => {
  it.each([
    ['kubernetes.io/hostname', true],
    ['node-role.kubernetes.io/control-plane', true],
    ['container.apparmor.security.beta.kubernetes.io/x', true],
    ['seccomp.security.alpha.kubernetes.io/pod', true],
    ['k8s.io/x', true],
    ['cluster-autoscaler.k8s.io/safe', true],
    ['drunc.daq/process-spec', true],
    ['uuid.drunc.daq', true],
    ['x.drunc.daq/y', true],
    ['detector', false],
    ['sim.kpm.daq/exit-code', false],
    ['example.com/owner', false],
    ['notkubernetes.io/x', false],
  ])('%s → %s', (key, reserved) => {
    expect(isReservedKey(key, 'drunc.daq')).toBe(reserved);
  });
});

describe('specPolicyErrors', () => {
  it.each([
    ['a safe spec', spec({ logsPath: '/log/a', restriction: { dataMount: '/data/a' } }), []],
    ['logsPath outside', spec({ logsPath: '/var/log' }), ['processes[0].logsPath']],
    [
      'dataMount on /',
      spec({ restriction: { dataMount: '/' } }),
      ['processes[0].restriction.dataMount'],
    ],
    ['drunc’s log file under a prefix', spec({ logFile: '/log/daq/log_a_s_ru-01.txt' }), []],
    [
      'drunc’s log file in a directory outside',
      spec({ logFile: '/var/log/log_a_s_ru-01.txt' }),
      ['processes[0].logFile'],
    ],
    [
      'drunc’s "." data mount in an allowed execution directory',
      spec({ executionDirectory: '/data/work', restriction: { dataMount: '.' } }),
      [],
    ],
    [
      'drunc’s "." data mount in an execution directory outside',
      spec({ executionDirectory: '/opt/daq', restriction: { dataMount: '.' } }),
      ['processes[0].restriction.dataMount'],
    ],
    [
      'drunc’s "." data mount without an execution directory',
      spec({ restriction: { dataMount: '.' } }),
      ['processes[0].restriction.dataMount'],
    ],
    ['reserved label', spec({ labels: { 'kubernetes.io/x': 'y' } }), ['processes[0].labels']],
    [
      'reserved annotation',
      spec({ annotations: { 'k8s.io/x': 'y' } }),
      ['processes[0].annotations'],
    ],
    ['the privileged ask', spec({ annotations: { 'drunc.daq/privileged': 'true' } }), []],
    [
      'cpu over',
      spec({ resources: { limits: { cpu: '4500m' } } }),
      ['processes[0].resources.limits'],
    ],
    [
      'memory over',
      spec({ resources: { requests: { memory: '9Gi' } } }),
      ['processes[0].resources.requests'],
    ],
    ['at the caps', spec({ resources: { limits: { cpu: '4', memory: '8192Mi' } } }), []],
  ])('%s', (_, s, paths) => {
    expect(specPolicyErrors('processes[0]', s, policy, 'alice').map((e) => e.path)).toEqual(paths);
  });

  it('names the log file’s directory and why a "." data mount cannot be resolved', () => {
    const [file] = specPolicyErrors('p', spec({ logFile: '/etc/x.txt' }), policy, 'alice');
    expect(file.message).toBe(
      'its directory "/etc": "/etc" would expose the node; allowed: /log, /data, /home (podManagement.hostPathPrefixes)',
    );
    const [dot] = specPolicyErrors(
      'p',
      spec({ restriction: { dataMount: './' } }),
      policy,
      'alice',
    );
    expect(dot.message).toBe(
      '"./" is the execution directory, and the process has no executionDirectory',
    );
  });

  it('names the cap and the setting', () => {
    const [error] = specPolicyErrors(
      'p',
      spec({ resources: { limits: { cpu: '8' } } }),
      policy,
      'alice',
    );
    expect(error.message).toBe(
      'cpu "8" is above the most a process may have, 4 (podManagement.maxCpu)',
    );
  });
});

describe('run as the user', () => {
  const ranged: PodPolicy = {
    ...policy,
    runAsUidRange: { min: 1000, max: 60000 },
    runAsGidRange: { min: 100, max: 200 },
  };
  it.each<[string, Partial<ProcessSpec>, PodPolicy, Array<[string, string]>]>([
    ['neither asked, no range', {}, policy, []],
    ['uid and gid within the ranges', { uid: 1000, gid: 200 }, ranged, []],
    ['the range ends', { uid: 60000, gid: 100 }, ranged, []],
    [
      'a uid below the range',
      { uid: 999 },
      ranged,
      [['p.uid', '999 is outside the allowed range 1000-60000 (podManagement.runAsUidRange)']],
    ],
    [
      'root',
      { uid: 0, gid: 0 },
      ranged,
      [
        ['p.uid', '0 is outside the allowed range 1000-60000 (podManagement.runAsUidRange)'],
        ['p.gid', '0 is outside the allowed range 100-200 (podManagement.runAsGidRange)'],
      ],
    ],
    [
      'a gid above the range',
      { gid: 201 },
      ranged,
      [['p.gid', '201 is outside the allowed range 100-200 (podManagement.runAsGidRange)']],
    ],
    [
      'a uid with no range configured',
      { uid: 1000 },
      policy,
      [
        [
          'p.uid',
          '1000 may not be asked: no uid range is configured (podManagement.runAsUidRange)',
        ],
      ],
    ],
  ])('%s', (_, ask, given, expected) => {
    const errors = specPolicyErrors('p', spec(ask), given, 'alice');
    expect(errors.map((e) => [e.path, e.message])).toEqual(expected);
  });

  it('sets runAsUser, runAsGroup and fsGroup on the pod, runAsNonRoot and the seccomp default off the privileged path', () => {
    expect(podSecurityContext(false, { uid: 1000, gid: 100 })).toEqual({
      runAsNonRoot: true,
      runAsUser: 1000,
      runAsGroup: 100,
      fsGroup: 100,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(podSecurityContext(false)).toEqual({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(podSecurityContext(true, { uid: 1000 })).toEqual({ runAsUser: 1000 });
    expect(podSecurityContext(true)).toBeUndefined();
  });
});

describe('never root by default: a process without a uid and gid runs only on the privileged path', () => {
  const unmapped = (user: string) =>
    `user ${JSON.stringify(user)} has no uid or gid to run the process as, and kpm runs no DAQ ` +
    `process as its image's user (root in most images): map the user in podManagement.runAsUsers ` +
    `(KPM_RUN_AS_USERS=${user}:<uid>:<gid>), set podManagement.defaultRunAs ` +
    `(KPM_DEFAULT_RUN_AS=<uid>:<gid>), or give the process its own uid and gid ` +
    `(within podManagement.runAsUidRange and runAsGidRange)`;
  const ranged: PodPolicy = {
    ...policy,
    runAsUidRange: { min: 1000, max: 60000 },
    runAsGidRange: { min: 1000, max: 60000 },
  };
  const readout: PodPolicy = {
    ...policy,
    readout: {
      readoutAppSelector: 'runp',
      hostConfigs: { 'np04-srv-001': { limits: {}, requests: {} } },
      readoutPrivileged: true,
    },
  };
  it.each<[string, string, Partial<ProcessSpec>, PodPolicy, Array<[string, string]>]>([
    ['a mapped user', 'alice', {}, policy, []],
    ['an unmapped user', 'daq', {}, policy, [['p.uid', unmapped('daq')]]],
    [
      'an unmapped user with the operator’s default',
      'daq',
      {},
      { ...policy, defaultRunAs: { uid: 65534, gid: 65534 } },
      [],
    ],
    ['an unmapped user whose process has its own ids', 'daq', { uid: 1500, gid: 1500 }, ranged, []],
    [
      'an unmapped user whose process has a uid alone: no gid',
      'daq',
      { uid: 1500 },
      ranged,
      [['p.gid', unmapped('daq').replace('no uid or gid', 'no gid')]],
    ],
    [
      'an unmapped user whose process has a gid alone: no uid',
      'daq',
      { gid: 1500 },
      ranged,
      [['p.uid', unmapped('daq').replace('no uid or gid', 'no uid')]],
    ],
    [
      'the privileged ask without allowPrivileged is no way to root',
      'daq',
      { annotations: { 'drunc.daq/privileged': 'true' } },
      policy,
      [['p.uid', unmapped('daq')]],
    ],
    [
      'the privileged ask with allowPrivileged: the image’s user',
      'daq',
      { annotations: { 'drunc.daq/privileged': 'true' } },
      { ...policy, allowPrivileged: true },
      [],
    ],
    [
      'drunc’s privileged readout pod on a host_configs host: the image’s user',
      'daq',
      { name: 'runp01', restriction: { allowedHosts: ['np04-srv-001'] } },
      readout,
      [],
    ],
    [
      'a readout pod with readoutPrivileged off is no way to root',
      'daq',
      { name: 'runp01', restriction: { allowedHosts: ['np04-srv-001'] } },
      { ...readout, readout: { ...readout.readout, readoutPrivileged: false } },
      [['p.uid', unmapped('daq')]],
    ],
  ])('%s', (_, user, ask, given, expected) => {
    const errors = specPolicyErrors('p', spec(ask), given, user);
    expect(errors.map((e) => [e.path, e.message])).toEqual(expected);
  });
});

describe('bootSizeErrors', () => {
  it.each([
    [100, []],
    [101, ['must list at most 100 processes (podManagement.maxProcessesPerBoot), not 101']],
  ])('%i processes', (count, messages) => {
    expect(bootSizeErrors(count, policy).map((e) => e.message)).toEqual(messages);
  });
});

describe('security contexts', () => {
  it('drops every capability but the allowed ones, no escalation, RuntimeDefault seccomp', () => {
    expect(containerSecurityContext(false, { allowedCapabilities: ['NET_ADMIN'] })).toEqual({
      privileged: false,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'], add: ['NET_ADMIN'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(containerSecurityContext(false, { allowedCapabilities: [] }).capabilities).toEqual({
      drop: ['ALL'],
    });
    expect(podSecurityContext(false)).toEqual({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
  });

  it('is privileged only on the privileged path', () => {
    expect(containerSecurityContext(true, { allowedCapabilities: [] })).toEqual({
      privileged: true,
    });
    expect(podSecurityContext(true)).toBeUndefined();
  });
});
