import type { ProcessSpec } from '@kpm/contracts';
import {
  isReadoutProcess,
  readoutErrors,
  readoutProfileOf,
  type ReadoutSettings,
} from './readout-profile';

const spec = (name: string, extra: Partial<ProcessSpec> = {}): ProcessSpec => ({
  name,
  executableAndArguments: [{ exec: 'daq_application', args: [] }],
  ...extra,
});

const profile = {
  cpu: '8',
  memory: '16Gi',
  hugepages: '2Gi',
  hugepagesPageSize: '2Mi' as const,
  hostNetwork: true,
};
const settings: ReadoutSettings = { readoutAppSelector: 'runp', readoutProfile: profile };
const guaranteed = { cpu: '8', memory: '16Gi', 'hugepages-2Mi': '2Gi' };

describe('isReadoutProcess', () => {
  it.each([
    ['runp-01', 'runp', true],
    ['np04-RUNP-apa1', 'runp', true], // any case, anywhere in the name
    ['runp', 'RUNP', true],
    ['ru-01', 'runp', false],
    ['run-p', 'runp', false],
    ['readout-7', 'readout', true],
  ])('%s with selector %s: %s', (name, selector, expected) => {
    expect(isReadoutProcess(name, selector)).toBe(expected);
  });
});

describe('readoutProfileOf', () => {
  it.each<[string, ProcessSpec, ReadoutSettings, unknown]>([
    ['no profile configured', spec('runp-01'), { readoutAppSelector: 'runp' }, undefined],
    ['a process the selector does not select', spec('ru-01'), settings, undefined],
    [
      'a readout process: requests = limits, hugepages mounted, the node network',
      spec('runp-01'),
      settings,
      {
        resources: { requests: guaranteed, limits: guaranteed },
        hostNetwork: true,
        volume: { name: 'kpm-hugepages', emptyDir: { medium: 'HugePages' } },
        mount: { name: 'kpm-hugepages', mountPath: '/dev/hugepages' },
      },
    ],
    [
      'its other resources kept; no hugepages, no mount; 1Gi pages named as such',
      spec('runp-01', { resources: { limits: { 'ephemeral-storage': '1Gi' } } }),
      {
        readoutAppSelector: 'runp',
        readoutProfile: { ...profile, hugepages: undefined, hostNetwork: false },
      },
      {
        resources: {
          requests: { cpu: '8', memory: '16Gi' },
          limits: { 'ephemeral-storage': '1Gi', cpu: '8', memory: '16Gi' },
        },
        hostNetwork: false,
      },
    ],
    [
      '1Gi pages',
      spec('runp-01'),
      {
        readoutAppSelector: 'runp',
        readoutProfile: { ...profile, hugepagesPageSize: '1Gi', hugepages: '4Gi' },
      },
      expect.objectContaining({
        resources: {
          requests: { cpu: '8', memory: '16Gi', 'hugepages-1Gi': '4Gi' },
          limits: { cpu: '8', memory: '16Gi', 'hugepages-1Gi': '4Gi' },
        },
      }),
    ],
  ])('%s', (_, given, readout, expected) => {
    expect(readoutProfileOf(given, readout)).toEqual(expected);
  });
});

describe('readoutErrors', () => {
  it.each<[string, ProcessSpec, ReadoutSettings, Array<{ path: string; message: RegExp }>]>([
    ['a readout process asking nothing', spec('runp-01'), settings, []],
    [
      'a readout process asking its own cpu limit',
      spec('runp-01', { resources: { limits: { cpu: '2' } } }),
      settings,
      [
        {
          path: 'processes[2].resources.limits',
          message:
            /^cpu of a readout process \(its name contains "runp", podManagement\.readoutAppSelector\) is set by podManagement\.readoutProfile/,
        },
      ],
    ],
    [
      'memory and hugepages of any size, requests and limits',
      spec('runp-01', {
        resources: { requests: { memory: '1Gi' }, limits: { 'hugepages-1Gi': '1Gi' } },
      }),
      settings,
      [
        { path: 'processes[2].resources.requests', message: /^memory of a readout process/ },
        { path: 'processes[2].resources.limits', message: /^hugepages-1Gi of a readout process/ },
      ],
    ],
    [
      'other resources of a readout process',
      spec('runp-01', { resources: { limits: { 'ephemeral-storage': '1Gi' } } }),
      settings,
      [],
    ],
    [
      'a process the selector does not select',
      spec('ru-01', { resources: { limits: { cpu: '2' } } }),
      settings,
      [],
    ],
    [
      'no profile configured',
      spec('runp-01', { resources: { limits: { cpu: '2' } } }),
      { readoutAppSelector: 'runp' },
      [],
    ],
  ])('%s', (_, given, readout, expected) => {
    const errors = readoutErrors('processes[2]', given, readout);
    expect(errors).toHaveLength(expected.length);
    expected.forEach((e, i) => {
      expect(errors[i].path).toBe(e.path);
      expect(errors[i].message).toMatch(e.message);
    });
  });
});

describe('drunc’s readout applications with host_configs', () => {
  const HOSTS: ReadoutSettings = {
    readoutAppSelector: 'runp',
    readoutProfile: profile, // host_configs win over kpm's one profile
    hostConfigs: {
      'np04-srv-031': {
        limits: { 'hugepages-2Mi': '32Gi', cpu: '128', memory: '1024Gi' },
        requests: { 'hugepages-2Mi': '32Gi', cpu: '32', memory: '256Gi' },
      },
      'np02-srv-001': { limits: { cpu: '64' } },
    },
  };
  const on = (...allowedHosts: string[]) => ({ restriction: { allowedHosts } });

  it('gives a readout pod its host’s resources, privilege with IPC_LOCK and hugepages', () => {
    expect(
      readoutProfileOf(spec('runp04srv031eth0', on('np04-srv-031')), HOSTS, 'np04-srv-031'),
    ).toEqual({
      resources: {
        limits: { 'hugepages-2Mi': '32Gi', cpu: '128', memory: '1024Gi' },
        requests: { 'hugepages-2Mi': '32Gi', cpu: '32', memory: '256Gi' },
      },
      hostNetwork: false,
      privileged: true,
      volume: { name: 'kpm-hugepages', emptyDir: { medium: 'HugePages' } },
      mount: { name: 'kpm-hugepages', mountPath: '/dev/hugepages' },
    });
  });

  it('mounts no hugepages when the host gives none, and drops privilege when told', () => {
    const quiet = { ...HOSTS, readoutPrivileged: false };
    expect(readoutProfileOf(spec('runp-2', on('np02-srv-001')), quiet, 'np02-srv-001')).toEqual({
      resources: { requests: {}, limits: { cpu: '64' } },
      hostNetwork: false,
      privileged: false,
    });
  });

  it('gives nothing on a host not listed, and nothing to a process that is no readout', () => {
    expect(readoutProfileOf(spec('runp-3'), HOSTS, 'elsewhere')).toBeUndefined();
    expect(readoutProfileOf(spec('runp-3'), HOSTS)).toBeUndefined();
    expect(readoutProfileOf(spec('ru-01'), HOSTS, 'np04-srv-031')).toBeUndefined();
  });

  it.each<[string, ProcessSpec, Array<[string, string]>]>([
    ['on a listed host', spec('runp-1', on('np04-srv-031')), []],
    ['no readout process, anywhere', spec('ru-01', on('elsewhere')), []],
    [
      'no host named (drunc: fatal)',
      spec('runp-1'),
      [
        [
          'p.restriction.allowedHosts',
          'a readout process (its name contains "runp", podManagement.readoutAppSelector) must name its host, one of podManagement.hostConfigs: np04-srv-031, np02-srv-001',
        ],
      ],
    ],
    [
      'a host not listed (drunc: fatal)',
      spec('runp-1', on('np04-srv-031', 'np04-srv-099')),
      [
        [
          'p.restriction.allowedHosts',
          'a readout process (its name contains "runp", podManagement.readoutAppSelector) runs only on a host of podManagement.hostConfigs (np04-srv-031, np02-srv-001), not np04-srv-099',
        ],
      ],
    ],
    [
      'asking what its host decides',
      spec('runp-1', {
        ...on('np04-srv-031'),
        resources: { limits: { cpu: '1', 'nvidia.com/gpu': '1' } },
      }),
      [
        [
          'p.resources.limits',
          'cpu of a readout process (its name contains "runp", podManagement.readoutAppSelector) is set by its host\'s podManagement.hostConfigs, not by the process',
        ],
      ],
    ],
  ])('%s', (_, s, expected) => {
    expect(readoutErrors('p', s, HOSTS).map((e) => [e.path, e.message])).toEqual(expected);
  });
});
