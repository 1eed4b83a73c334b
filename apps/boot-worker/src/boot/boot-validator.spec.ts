import type { ProcessSpec } from '@kpm/contracts';
import { KpmLabels, podNameOf } from '@kpm/kube';
import { validateBoot, type BootInput, type BootPolicy } from './boot-validator';
import { planProcesses } from './planned-process';

const policy: BootPolicy = {
  labels: new KpmLabels('drunc.daq'),
  allowedImages: ['ghcr.io/dune-daq/*', 'kpm.invalid/app:1.0'],
  defaultImage: 'ghcr.io/dune-daq/alma9:latest',
  allowPrivileged: false,
  pod: {
    domain: 'drunc.daq',
    hostPathPrefixes: ['/log', '/data'],
    allowPrivileged: false,
    allowedCapabilities: [],
    maxProcessesPerBoot: 3,
    readout: { readoutAppSelector: 'runp' },
    runAsUsers: [],
    defaultRunAs: { uid: 1000, gid: 1000 },
  },
};

const spec = (name: string, extra: Partial<ProcessSpec> = {}): ProcessSpec => ({
  name,
  executableAndArguments: [{ exec: 'daq_application', args: [] }],
  ...extra,
});

function input(specs: ProcessSpec[], extra: Partial<BootInput> = {}): BootInput {
  return {
    session: 'run-7',
    user: 'alice',
    processes: planProcesses('cmd-1', specs),
    existing: [],
    ...extra,
  };
}

const errors = (i: BootInput, p: BootPolicy = policy) => validateBoot(i, p);

describe('validateBoot', () => {
  it('accepts a boot into a new session', () => {
    expect(errors(input([spec('ru-01'), spec('ru-02', { image: 'kpm.invalid/app:1.0' })]))).toEqual(
      [],
    );
  });

  it("refuses a session owned by another user, or a namespace that is not kpm's", () => {
    expect(errors(input([spec('ru-01')], { namespace: { kpm: true, owner: 'bob' } }))).toEqual([
      { path: 'session', message: 'session "run-7" belongs to user "bob", not "alice"' },
    ]);
    expect(errors(input([spec('ru-01')], { namespace: { kpm: false } }))).toEqual([
      {
        path: 'session',
        message: 'namespace "run-7" exists and was not created by kpm',
      },
    ]);
    expect(errors(input([spec('ru-01')], { namespace: { kpm: true, owner: 'alice' } }))).toEqual(
      [],
    );
  });

  it('refuses a name a running process of the session already has', () => {
    const existing = [{ name: 'ru-01', uuid: 'u-old', alive: true }];
    expect(errors(input([spec('ru-02'), spec('ru-01')], { existing }))).toEqual([
      {
        path: 'processes[1].name',
        message:
          '"ru-01" is already running in session "run-7" (uuid u-old); kill it first or choose another name',
      },
    ]);
  });

  it('lets a name be reused once its process ended, and a redelivered boot find its own pods', () => {
    expect(
      errors(
        input([spec('ru-01')], { existing: [{ name: 'ru-01', uuid: 'u-old', alive: false }] }),
      ),
    ).toEqual([]);
    const again = input([spec('ru-01')]);
    const own = [{ name: 'ru-01', uuid: again.processes[0].uuid, alive: true }];
    expect(errors({ ...again, existing: own })).toEqual([]);
  });

  it('refuses a uuid given twice or owned by another process', () => {
    const uuid = '0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c';
    expect(errors(input([spec('a', { uuid }), spec('b', { uuid })]))).toEqual([
      { path: 'processes[1].uuid', message: 'duplicate uuid (also processes[0])' },
    ]);
    expect(
      errors(input([spec('a', { uuid })], { existing: [{ name: 'z', uuid, alive: false }] })),
    ).toEqual([
      {
        path: 'processes[0].uuid',
        message: `uuid ${uuid} already belongs to process "z" in session "run-7"`,
      },
    ]);
  });

  it('refuses an image outside the allow-list, also the default one', () => {
    expect(errors(input([spec('a', { image: 'docker.io/evil/miner:1' })]))).toEqual([
      {
        path: 'processes[0].image',
        message:
          'image "docker.io/evil/miner:1" is not in the allow-list (ghcr.io/dune-daq/*, kpm.invalid/app:1.0)',
      },
    ]);
    expect(
      errors(input([spec('a')]), { ...policy, allowedImages: ['kpm.invalid/app:1.0'] }),
    ).toEqual([
      {
        path: 'processes[0].image',
        message:
          'the default image "ghcr.io/dune-daq/alma9:latest" is not in the allow-list (kpm.invalid/app:1.0)',
      },
    ]);
    expect(
      errors(input([spec('a', { image: 'anything:1' })]), { ...policy, allowedImages: ['*'] }),
    ).toEqual([]);
  });

  it('refuses a privileged ask unless configured, and a malformed one always', () => {
    const asking = input([spec('a', { annotations: { 'drunc.daq/privileged': 'true' } })]);
    expect(errors(asking)).toEqual([
      {
        path: 'processes[0].annotations',
        message:
          '"drunc.daq/privileged" asks for a privileged container, which this boot-worker does not allow (podManagement.allowPrivileged)',
      },
    ]);
    expect(errors(asking, { ...policy, allowPrivileged: true })).toEqual([]);
    expect(errors(input([spec('a', { annotations: { 'drunc.daq/privileged': 'yes' } })]))).toEqual([
      {
        path: 'processes[0].annotations',
        message: '"drunc.daq/privileged" must be "true" or "false"',
      },
    ]);
  });

  it("refuses labels and annotations in kpm's domain", () => {
    const forged = input([
      spec('a', {
        labels: { 'creator.drunc.daq': 'kpm', app: 'b', detector: 'np04' },
        annotations: { 'drunc.daq/process-spec': '{}', 'sim.kpm.daq/exit-code': '3' },
      }),
    ]);
    expect(errors(forged)).toEqual([
      { path: 'processes[0].labels', message: 'key "app" is reserved for kpm' },
      { path: 'processes[0].labels', message: 'key "creator.drunc.daq" is reserved for kpm' },
      {
        path: 'processes[0].annotations',
        message: 'key "drunc.daq/process-spec" is reserved for kpm',
      },
    ]);
  });

  const UUID = '6986691a-34e3-5b89-9b21-8689a1b969d6';
  it.each<[string, BootInput, Array<[string, string]>]>([
    [
      'a host path outside the prefixes',
      input([spec('a', { logsPath: '/etc/daq' })]),
      [
        [
          'processes[0].logsPath',
          '"/etc/daq" would expose the node; allowed: /log, /data (podManagement.hostPathPrefixes)',
        ],
      ],
    ],
    [
      'a data mount on the node root',
      input([spec('a', { restriction: { dataMount: '/' } })]),
      [
        [
          'processes[0].restriction.dataMount',
          '"/" would expose the node; allowed: /log, /data (podManagement.hostPathPrefixes)',
        ],
      ],
    ],
    [
      'a Kubernetes annotation',
      input([
        spec('a', {
          annotations: { 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined' },
        }),
      ]),
      [
        [
          'processes[0].annotations',
          'key "container.apparmor.security.beta.kubernetes.io/a" is reserved for Kubernetes (kubernetes.io/, k8s.io/)',
        ],
      ],
    ],
    [
      'more processes than the operator allows',
      input([spec('a'), spec('b'), spec('c'), spec('d')]),
      [['processes', 'must list at most 3 processes (podManagement.maxProcessesPerBoot), not 4']],
    ],
    [
      "a uuid another session's process has",
      input([spec('a', { uuid: UUID })], {
        elsewhere: [{ name: 'ru-01', uuid: UUID, session: 'run-1', alive: true }],
      }),
      [['processes[0].uuid', `uuid ${UUID} is already used by process "ru-01" in session "run-1"`]],
    ],
  ])('refuses %s', (_, boot, expected) => {
    expect(errors(boot).map((e) => [e.path, e.message])).toEqual(expected);
  });

  it('accepts a uuid found only in its own session (a redelivered boot)', () => {
    const boot = input([spec('a', { uuid: UUID })], {
      elsewhere: [{ name: 'a', uuid: UUID, session: 'run-7', alive: true }],
    });
    expect(errors(boot)).toEqual([]);
  });

  it("accepts drunc's names that are no Service name: their pods' names derive from them", () => {
    expect(errors(input([spec('0-ru'), spec('dummy_boot_0'), spec('RU.01')]))).toEqual([]);
  });

  it('refuses two names whose pods would share a name, in the boot or with a running process', () => {
    const derived = podNameOf('dummy_boot_0');
    expect(errors(input([spec('dummy_boot_0'), spec(derived)]))).toEqual([
      {
        path: 'processes[1].name',
        message: `"${derived}" would name its pod "${derived}", as processes[0] "dummy_boot_0" does: rename one of them`,
      },
    ]);
    const running = { name: 'dummy_boot_0', podName: derived, uuid: UUID, alive: true };
    expect(errors(input([spec(derived)], { existing: [running] }))).toEqual([
      {
        path: 'processes[0].name',
        message: `"${derived}" would name its pod "${derived}", as the running process "dummy_boot_0" does: rename one of them`,
      },
    ]);
    expect(errors(input([spec(derived)], { existing: [{ ...running, alive: false }] }))).toEqual(
      [],
    );
  });

  it('refuses a USER that is not the command user, and a user that cannot be a label value', () => {
    expect(errors(input([spec('a', { env: { USER: 'root' } })]))).toEqual([
      {
        path: 'processes[0].env',
        message: 'USER is set by kpm to the command\'s user "alice", not "root"',
      },
    ]);
    expect(errors(input([spec('a')], { user: '_svc' }))[0]).toMatchObject({ path: 'user' });
  });
});
