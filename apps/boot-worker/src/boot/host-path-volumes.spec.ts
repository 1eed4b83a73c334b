import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  allowedPrefixOf,
  hostPathVolumes,
  PREPARE_SCRIPT,
  prepareContainer,
  type HostDirectory,
} from './host-path-volumes';

const dir = (extra: Partial<HostDirectory>): HostDirectory => ({
  field: 'logsPath',
  name: 'kpm-logs',
  path: '/log/run-7',
  prefix: '/log',
  type: 'DirectoryOrCreate',
  ...extra,
});

describe('allowedPrefixOf: the tightest allowed prefix a path lies within', () => {
  it.each<[string, string[], string | undefined]>([
    ['/data/run-7', ['/log', '/data'], '/data'],
    ['/data/run-7', ['/data', '/data/run-7'], '/data/run-7'],
    ['/data/daq/x', ['/data', '/data/daq/'], '/data/daq'],
    ['/data', ['/data'], '/data'],
    ['/data-other/x', ['/data'], undefined],
    ['/data/../etc', ['/data'], undefined],
    ['/x/y', ['/'], '/'],
  ])('%s in %j: %s', (path, prefixes, expected) => {
    expect(allowedPrefixOf(path, prefixes)).toBe(expected);
  });
});

describe('hostPathVolumes: the prefix as the hostPath volume, the rest as subPath', () => {
  it.each<[string, HostDirectory, object, object, string[]]>([
    [
      'a log directory below its prefix: created',
      dir({}),
      { name: 'kpm-logs', hostPath: { path: '/log', type: 'DirectoryOrCreate' } },
      { name: 'kpm-logs', mountPath: '/log/run-7', subPath: 'run-7' },
      ['/kpm/host/kpm-logs', '/log/run-7', 'logsPath', 'create', 'run-7'],
    ],
    [
      'a data directory several levels down: checked, never created',
      dir({
        field: 'restriction.dataMount',
        name: 'kpm-data',
        path: '/data/np04/run-7/',
        prefix: '/data',
        type: 'Directory',
      }),
      { name: 'kpm-data', hostPath: { path: '/data', type: 'Directory' } },
      { name: 'kpm-data', mountPath: '/data/np04/run-7', subPath: 'np04/run-7' },
      ['/kpm/host/kpm-data', '/data/np04/run-7', 'restriction.dataMount', 'check', 'np04/run-7'],
    ],
    [
      'a path spelled with dots: normalised before it is split',
      dir({ path: '/log/./a//b/../run-7' }),
      { name: 'kpm-logs', hostPath: { path: '/log', type: 'DirectoryOrCreate' } },
      { name: 'kpm-logs', mountPath: '/log/a/run-7', subPath: 'a/run-7' },
      ['/kpm/host/kpm-logs', '/log/a/run-7', 'logsPath', 'create', 'a/run-7'],
    ],
    [
      'the prefix itself: no subPath, nothing to prepare',
      dir({ path: '/log/' }),
      { name: 'kpm-logs', hostPath: { path: '/log', type: 'DirectoryOrCreate' } },
      { name: 'kpm-logs', mountPath: '/log' },
      [],
    ],
    [
      'the home directory under the home base',
      dir({
        field: 'home',
        name: 'kpm-home',
        path: '/nfs/home/alice',
        prefix: '/nfs/home',
        type: 'Directory',
      }),
      { name: 'kpm-home', hostPath: { path: '/nfs/home', type: 'Directory' } },
      { name: 'kpm-home', mountPath: '/nfs/home/alice', subPath: 'alice' },
      ['/kpm/host/kpm-home', '/nfs/home/alice', 'home', 'check', 'alice'],
    ],
  ])('%s', (_, given, volume, mount, prepare) => {
    const plan = hostPathVolumes([given]);
    expect(plan.volumes).toEqual([volume]);
    expect(plan.mounts).toEqual([mount]);
    expect(plan.prepare).toEqual(prepare);
  });

  it.each<[string, HostDirectory, string]>([
    [
      'a path outside its prefix',
      dir({ path: '/etc/passwd-dir' }),
      'logsPath: /etc/passwd-dir is not within its prefix /log',
    ],
    [
      'a path climbing out of its prefix',
      dir({ field: 'home', path: '/nfs/home/../root', prefix: '/nfs/home' }),
      'home: /nfs/root is not within its prefix /nfs/home',
    ],
    [
      'a prefix that only shares the path’s first letters',
      dir({ path: '/logs/x' }),
      'logsPath: /logs/x is not within its prefix /log',
    ],
  ])('refuses %s, naming the field and both paths', (_, given, message) => {
    expect(() => hostPathVolumes([given])).toThrow(message);
  });

  it('gives the init container the prefixes, read-only where it only checks, and the process’s resources', () => {
    const plan = hostPathVolumes([
      dir({}),
      dir({
        field: 'restriction.dataMount',
        name: 'kpm-data',
        path: '/data/x',
        prefix: '/data',
        type: 'Directory',
      }),
    ]);
    expect(plan.prepareMounts).toEqual([
      { name: 'kpm-logs', mountPath: '/kpm/host/kpm-logs' },
      { name: 'kpm-data', mountPath: '/kpm/host/kpm-data', readOnly: true },
    ]);
    const init = prepareContainer(
      plan,
      { image: 'daq:1', resources: { limits: { cpu: '2' } } },
      { privileged: false },
    );
    expect(init).toEqual({
      name: 'kpm-host-paths',
      image: 'daq:1',
      command: ['/bin/sh', '-c', PREPARE_SCRIPT, 'kpm-host-paths', ...plan.prepare],
      resources: { limits: { cpu: '2' } },
      volumeMounts: plan.prepareMounts,
      terminationMessagePolicy: 'FallbackToLogsOnError',
      securityContext: { privileged: false, readOnlyRootFilesystem: true },
    });
    expect(prepareContainer(hostPathVolumes([dir({ path: '/log' })]), {}, {})).toBeUndefined();
  });
});

/** The init container's script, run by this machine's sh on a scratch directory as the prefix. */
describe('the init container’s script', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'kpm-prepare-'));
    mkdirSync(join(root, 'prefix'));
    mkdirSync(join(root, 'outside'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const run = (...args: string[]) => {
    const result = spawnSync('/bin/sh', ['-c', PREPARE_SCRIPT, 'kpm-host-paths', ...args], {
      encoding: 'utf8',
    });
    return { status: result.status, stderr: result.stderr };
  };
  const at = () => join(root, 'prefix');

  it('creates every missing directory of a created path, one component at a time', () => {
    expect(run(at(), '/log/a/b/c', 'logsPath', 'create', 'a/b/c')).toEqual({
      status: 0,
      stderr: '',
    });
    expect(lstatSync(join(at(), 'a/b/c')).isDirectory()).toBe(true);
  });

  it('fails on a checked path that does not exist, naming the field and the host path', () => {
    mkdirSync(join(at(), 'np04'));
    expect(run(at(), '/data/np04/run-7', 'restriction.dataMount', 'check', 'np04/run-7')).toEqual({
      status: 1,
      stderr: 'restriction.dataMount: /data/np04/run-7 does not exist on the node (no run-7)\n',
    });
    expect(existsSync(join(at(), 'np04/run-7'))).toBe(false);
  });

  it('stops at a symlink, creating nothing through it: the kubelet’s subPath check decides', () => {
    symlinkSync(join(root, 'outside'), join(at(), 'link'));
    expect(run(at(), '/log/link/logs', 'logsPath', 'create', 'link/logs').status).toBe(0);
    expect(existsSync(join(root, 'outside', 'logs'))).toBe(false);
  });

  it('prepares each path of several, and fails at the first that cannot be', () => {
    const result = run(
      ...[at(), '/log/a', 'logsPath', 'create', 'a'],
      ...[at(), '/data/missing', 'restriction.dataMount', 'check', 'missing'],
      ...[at(), '/log/b', 'logFile', 'create', 'b'],
    );
    expect(result.status).toBe(1);
    expect(existsSync(join(at(), 'a'))).toBe(true);
    expect(existsSync(join(at(), 'b'))).toBe(false);
  });

  it('names a component that is a file, not a directory', () => {
    spawnSync('/bin/sh', ['-c', `: > "${join(at(), 'file')}"`]);
    expect(run(at(), '/log/file/x', 'logsPath', 'create', 'file/x')).toEqual({
      status: 1,
      stderr: expect.stringContaining(
        'logsPath: /log/file/x: file is not a directory uid',
      ) as string,
    });
  });
});
