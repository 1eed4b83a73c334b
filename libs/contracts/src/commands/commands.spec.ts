/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call -- the tests edit raw JSON on purpose */
/**
 * Every command rule has a failing example naming the exact path and why (docs/design.md §4,
 * §6.7). Records go through `parseRecord`, as a consumer sees them.
 */
import { encodeEvent } from '../build';
import { CommandType } from '../event-types';
import { EXAMPLE_EVENTS } from '../examples';
import { parseRecord } from '../parse';
import type { FieldError } from '../validation/validate';

type Data = Record<string, any>;

/** The errors of the example command of `type` after `change` edits a copy of its data. */
function errorsOf(type: CommandType, change: (data: Data) => void): FieldError[] {
  const example = EXAMPLE_EVENTS[type];
  const data = structuredClone(example.data) as Data;
  change(data);
  const result = parseRecord(encodeEvent({ ...example, data } as typeof example).value);
  if (result.ok) return [];
  if (result.kind !== 'invalid') throw new Error(`unexpected ${result.kind}: ${result.reason}`);
  return result.errors;
}

const boot = (change: (data: Data) => void) => errorsOf(CommandType.boot, change);
const firstProcess = (change: (p: Data) => void) => boot((d) => change(d.processes[0]));
const kill = (change: (data: Data) => void) => errorsOf(CommandType.kill, change);
const rejects = (path: string, why: string) => [{ path, message: expect.stringContaining(why) }];

describe('boot command', () => {
  it('accepts the example', () => {
    expect(boot(() => undefined)).toEqual([]);
  });

  it.each(['Session-A', 'session_a', '-a', 'a-', 'a'.repeat(64), ''])(
    'rejects the session %j (DNS-1123 label)',
    (session) => {
      // The subject follows the session so only the session rule fires.
      const example = EXAMPLE_EVENTS[CommandType.boot];
      const result = parseRecord(
        encodeEvent({ ...example, subject: session || 'x', data: { ...example.data, session } })
          .value,
      );
      expect(result.ok ? [] : result.kind === 'invalid' && result.errors).toEqual(
        rejects('session', 'DNS-1123 label'),
      );
    },
  );

  it('accepts a 63-character session', () => {
    const session = 'a'.repeat(63);
    const example = EXAMPLE_EVENTS[CommandType.boot];
    const result = parseRecord(
      encodeEvent({ ...example, subject: session, data: { ...example.data, session } }).value,
    );
    expect(result.ok).toBe(true);
  });

  it.each(['', 'al ice', 'alice;rm', 'ä'])('rejects the user %j', (user) => {
    expect(boot((d) => (d.user = user))).toEqual(rejects('user', 'user name'));
  });

  it('rejects a boot without processes', () => {
    expect(boot((d) => (d.processes = []))).toEqual(rejects('processes', 'at least one process'));
  });

  it('rejects more than 5000 processes', () => {
    const errors = boot((d) => {
      d.processes = Array.from({ length: 5001 }, (_, i) => ({ ...d.processes[0], name: `p${i}` }));
    });
    expect(errors).toEqual(rejects('processes', 'at most 5000 processes'));
  });

  it('rejects a duplicate name, pointing at the repeat', () => {
    const errors = boot((d) => {
      d.processes = ['a', 'b', 'c', 'a'].map((name) => ({ ...d.processes[0], name }));
    });
    expect(errors).toEqual(rejects('processes[3].name', 'duplicate name "a" (also processes[0])'));
  });

  it.each(['RU-01', 'ru_01', 'ru.01', 'dummy_boot_0', '0', 'r'.repeat(253), 'été'])(
    "accepts drunc's process name %j",
    (name) => expect(firstProcess((p) => (p.name = name))).toEqual([]),
  );

  it.each(['', 'r'.repeat(254), 'ru 01', 'ru\t01', 'ru\n01', 'ru\u0000'])(
    'rejects the process name %j',
    (name) => {
      expect(firstProcess((p) => (p.name = name))).toEqual(
        rejects('processes[0].name', 'without whitespace or control characters'),
      );
    },
  );

  it('accepts a given uuid and rejects a malformed one', () => {
    expect(firstProcess((p) => (p.uuid = '0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c'))).toEqual([]);
    expect(firstProcess((p) => (p.uuid = 'not-a-uuid'))).toEqual(
      rejects('processes[0].uuid', 'must be a UUID'),
    );
  });

  it.each<[string, unknown, string | undefined]>([
    ['uid', 1000, undefined],
    ['gid', 0, undefined],
    ['uid', 2147483647, undefined],
    ['uid', -1, 'must not be negative'],
    ['gid', 2147483648, 'must be at most 2147483647'],
    ['uid', 1000.5, 'must be a whole number'],
    ['gid', '1000', 'must be a whole number'],
  ])('%s %j: %s', (field, value, why) => {
    const errors = firstProcess((p) => ((p as unknown as Record<string, unknown>)[field] = value));
    expect(errors).toEqual(why ? rejects(`processes[0].${field}`, why) : []);
  });

  it.each(['1..2', '1.', '.1', 'a', '1.a'])('rejects the treeId %j', (treeId) => {
    expect(firstProcess((p) => (p.treeId = treeId))).toEqual(
      rejects('processes[0].treeId', 'dot-separated numbers'),
    );
  });

  it.each(['1BAD', 'A-B', '', 'A B'])('rejects the env key %j, naming it', (key) => {
    expect(firstProcess((p) => (p.env = { OK: '1', [key]: 'x' }))).toEqual(
      rejects(
        'processes[0].env',
        `key ${JSON.stringify(key)} is not a valid environment variable name`,
      ),
    );
  });

  it('rejects a non-string env value', () => {
    expect(firstProcess((p) => (p.env = { N: 1 }))).toEqual(
      rejects('processes[0].env', 'value of "N" must be a string'),
    );
  });

  it.each([
    ['logsPath', 'var/log', 'absolute path'],
    ['logsPath', '/var/log/../../etc', 'path traversal'],
    ['logsPath', '..', 'absolute path'],
    ['executionDirectory', '/opt/..', 'path traversal'],
    ['executionDirectory', '', 'non-empty'],
  ])('rejects %s %j', (field, value, why) => {
    expect(firstProcess((p) => (p[field] = value))).toEqual(rejects(`processes[0].${field}`, why));
  });

  it('accepts variables from Secrets by reference, and whole Secrets', () => {
    expect(
      firstProcess((p) => {
        p.secretEnv = [{ name: 'DB_PASSWORD', secretKeyRef: { name: 'daq-db', key: 'password' } }];
        p.envFrom = [{ secretRef: { name: 'daq.credentials' } }];
      }),
    ).toEqual([]);
  });

  const secret = (name: string, secretName = 'daq-db', key = 'password') => ({
    name,
    secretKeyRef: { name: secretName, key },
  });
  it.each<[string, (p: Data) => void, string, string]>([
    [
      'a Secret name that is no DNS-1123 subdomain',
      (p) => (p.secretEnv = [secret('DB', 'DAQ_DB')]),
      'processes[0].secretEnv[0].secretKeyRef.name',
      'must be the name of a Kubernetes Secret',
    ],
    [
      'a key with a slash',
      (p) => (p.secretEnv = [secret('DB', 'daq-db', '../password')]),
      'processes[0].secretEnv[0].secretKeyRef.key',
      'must be a key of a Secret',
    ],
    [
      'a bad variable name',
      (p) => (p.secretEnv = [secret('1DB')]),
      'processes[0].secretEnv[0].name',
      'is not a valid environment variable name',
    ],
    [
      'a variable named twice',
      (p) => (p.secretEnv = [secret('DB'), secret('DB', 'other')]),
      'processes[0].secretEnv',
      'DB is named twice',
    ],
    [
      'a variable also given a value in env',
      (p) => ((p.env = { DB: 'plain' }), (p.secretEnv = [secret('DB')])),
      'processes[0].secretEnv',
      'DB is also in env: give it one source',
    ],
    [
      'USER from a Secret',
      (p) => (p.secretEnv = [secret('USER')]),
      'processes[0].secretEnv',
      "USER is set by kpm to the command's user",
    ],
    [
      'a whole Secret with a bad name',
      (p) => (p.envFrom = [{ secretRef: { name: 'Daq' } }]),
      'processes[0].envFrom[0].secretRef.name',
      'must be the name of a Kubernetes Secret',
    ],
    [
      'a secret value instead of a reference',
      (p) => (p.secretEnv = [{ name: 'DB', value: 'hunter2' }]),
      'processes[0].secretEnv[0].value',
      'is not a known field',
    ],
  ])('refuses %s, naming the field', (_, change, path, why) => {
    expect(firstProcess(change)).toEqual(expect.arrayContaining(rejects(path, why)));
    expect(firstProcess((p) => (p.secretEnv = [secret('DB')]))).toEqual([]);
  });

  it('accepts paths that merely contain dots', () => {
    expect(firstProcess((p) => (p.logsPath = '/var/log/..hidden/run.1'))).toEqual([]);
  });

  it.each([
    ['/log/daq/log_alice_run-7_ru-01.txt', []],
    ['/log/daq/', ['must name a file']],
    ['/log.txt', ['inside a directory']],
    ['log.txt', ['absolute path']],
    ['/log/../etc/x.txt', ['path traversal']],
  ])('takes drunc’s log file %j only as a file in a directory', (value, why) => {
    const errors = firstProcess((p) => (p.logFile = value));
    if (why.length === 0) expect(errors).toEqual([]);
    else expect(errors).toEqual(rejects('processes[0].logFile', why[0]));
  });

  it.each([['.'], ['./']])('accepts drunc’s %j data mount (the execution directory)', (mount) => {
    expect(firstProcess((p) => (p.restriction.dataMount = mount))).toEqual([]);
  });

  it('rejects any other relative data mount, naming what is allowed', () => {
    expect(firstProcess((p) => (p.restriction.dataMount = 'data'))).toEqual(
      rejects('processes[0].restriction.dataMount', 'or "." for the execution directory'),
    );
  });

  it('rejects path traversal in the data mount', () => {
    expect(firstProcess((p) => (p.restriction.dataMount = '/data/../../etc'))).toEqual(
      rejects('processes[0].restriction.dataMount', 'path traversal'),
    );
  });

  it('rejects an allowed host that is not a node name', () => {
    expect(firstProcess((p) => (p.restriction.allowedHosts = ['Node 1']))).toEqual(
      rejects('processes[0].restriction.allowedHosts', 'Kubernetes node name'),
    );
  });

  it('points into nested arrays', () => {
    const errors = boot((d) => {
      d.processes.push({ ...d.processes[0], name: 'ru-02' }, { ...d.processes[0], name: 'ru-03' });
      d.processes[2].executableAndArguments = [{ exec: 'a' }, { exec: '' }];
    });
    expect(errors).toEqual(
      rejects('processes[2].executableAndArguments[1].exec', 'should not be empty'),
    );
  });

  it('rejects a process without commands', () => {
    expect(firstProcess((p) => (p.executableAndArguments = []))).toEqual(
      rejects('processes[0].executableAndArguments', 'at least 1'),
    );
  });

  it('rejects non-string args', () => {
    expect(firstProcess((p) => (p.executableAndArguments[0].args = ['ok', 3]))).toEqual(
      rejects('processes[0].executableAndArguments[0].args', 'must be a string'),
    );
  });

  it('names unknown fields instead of ignoring them', () => {
    expect(firstProcess((p) => (p.imag = 'x'))).toEqual(
      rejects('processes[0].imag', 'not a known field'),
    );
    expect(boot((d) => (d.sesion = 'x'))).toEqual(rejects('sesion', 'not a known field'));
  });

  it('rejects invalid labels, resources and images', () => {
    expect(firstProcess((p) => (p.labels = { detector: 'np 04' }))).toEqual(
      rejects('processes[0].labels', 'value of "detector" is not a valid Kubernetes label value'),
    );
    expect(firstProcess((p) => (p.annotations = { 'bad key!': 'x' }))).toEqual(
      rejects(
        'processes[0].annotations',
        'key "bad key!" is not a valid Kubernetes annotation key',
      ),
    );
    expect(firstProcess((p) => (p.resources.requests = { cpu: 'lots' }))).toEqual(
      rejects('processes[0].resources.requests', 'value of "cpu" is not a Kubernetes quantity'),
    );
    expect(firstProcess((p) => (p.image = 'a b'))).toEqual(
      rejects('processes[0].image', 'without whitespace'),
    );
  });

  it('reports every error at once', () => {
    const errors = boot((d) => {
      d.user = '';
      d.processes[0].name = 'X 1';
      d.processes[0].logsPath = 'rel';
    });
    expect(errors.map((e) => e.path).sort()).toEqual([
      'processes[0].logsPath',
      'processes[0].name',
      'user',
    ]);
  });
});

describe('boot command: exit policy', () => {
  const policy = (exitPolicy: unknown) => boot((d) => (d.exitPolicy = exitPolicy));
  const restart = { action: 'Restart' };

  it('accepts a policy for the boot and one per process', () => {
    const rules = [
      { action: 'Ignore', exitCodes: { operator: 'In', values: [0] } },
      {
        action: 'FailSession',
        exitCodes: { operator: 'In', values: [139] },
        roles: ['application'],
      },
      { action: 'Restart', reasons: ['OOMKilled', 'NodeLost'] },
      { action: 'Count' },
    ];
    expect(policy({ rules, maxRestarts: 3, windowSeconds: 600, backoffSeconds: 10 })).toEqual([]);
    expect(firstProcess((p) => (p.exitPolicy = { rules: [restart] }))).toEqual([]);
  });

  it.each([
    [
      { rules: [{ action: 'Reboot' }] },
      'exitPolicy.rules[0].action',
      'must be one of Ignore, Restart, FailSession, Count',
    ],
    [{ rules: [restart], maxRestarts: -1 }, 'exitPolicy.maxRestarts', 'must not be negative'],
    [
      { rules: [restart], maxRestarts: 0 },
      'exitPolicy.maxRestarts',
      'a Restart rule could never restart',
    ],
    [{ rules: [] }, 'exitPolicy.rules', 'at least one rule'],
    [
      { rules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [] } }] },
      'exitPolicy.rules[0].exitCodes.values',
      'at least one exit code',
    ],
    [
      { rules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [300] } }] },
      'exitPolicy.rules[0].exitCodes.values',
      'at most 255',
    ],
    [
      { rules: [{ action: 'Restart', exitCodes: { operator: 'Is', values: [1] } }] },
      'exitPolicy.rules[0].exitCodes.operator',
      'must be In or NotIn',
    ],
    [
      { rules: [{ action: 'Restart', roles: ['readout'] }] },
      'exitPolicy.rules[0].roles',
      'each role must be one of',
    ],
    [
      { rules: [{ action: 'Restart', reasons: ['out of memory'] }] },
      'exitPolicy.rules[0].reasons',
      'a reason word',
    ],
    [
      { rules: [{ action: 'Count' }, restart] },
      'exitPolicy.rules[1]',
      'can never match: rules[0] before it matches every end',
    ],
    [
      { rules: [restart], backoffSeconds: 60, maxBackoffSeconds: 10 },
      'exitPolicy.maxBackoffSeconds',
      'at least backoffSeconds (60)',
    ],
    [{ rules: [restart], windowSeconds: 0 }, 'exitPolicy.windowSeconds', 'at least 1 second'],
    [
      { rules: [restart], maxBackoffSeconds: 5 },
      'exitPolicy.maxBackoffSeconds',
      'must be at least backoffSeconds (10, its default)',
    ],
    [
      { rules: [restart], windowSeconds: 10 },
      'exitPolicy.windowSeconds',
      'must be longer than backoffSeconds (10, its default): the next end always comes after the window',
    ],
  ])('refuses %j at the field that is wrong', (exitPolicy, path, why) => {
    expect(policy(exitPolicy)).toEqual(rejects(path, why));
  });

  it('refuses a NotIn that lists every exit code: it can never match', () => {
    const values = Array.from({ length: 257 }, (_, i) => i - 1);
    const rules = [{ action: 'Restart', exitCodes: { operator: 'NotIn', values } }];
    expect(policy({ rules })).toEqual(
      rejects(
        'exitPolicy.rules[0].exitCodes.values',
        'can never match: NotIn lists every exit code',
      ),
    );
  });

  it('refuses a rule after one that lists every code or every role: it can never match', () => {
    const every = Array.from({ length: 257 }, (_, i) => i - 1);
    const allRoles = [
      'root-controller',
      'infrastructure-applications',
      'segment-controller',
      'application',
      'unknown',
    ];
    for (const first of [
      { action: 'Count', exitCodes: { operator: 'In', values: every } },
      { action: 'Ignore', roles: allRoles },
    ])
      expect(policy({ rules: [first, restart] })).toEqual(
        rejects('exitPolicy.rules[1]', 'can never match: rules[0] before it matches every end'),
      );
    expect(policy({ rules: [{ action: 'Ignore', roles: allRoles.slice(1) }, restart] })).toEqual(
      [],
    );
  });

  it("points into a process's own policy", () => {
    expect(firstProcess((p) => (p.exitPolicy = { rules: [{ action: 'Pause' }] }))).toEqual(
      rejects('processes[0].exitPolicy.rules[0].action', 'must be one of'),
    );
  });
});

describe('kill command', () => {
  it('accepts an empty query (the handlers decide what it matches)', () => {
    expect(kill((d) => (d.query = {}))).toEqual([]);
  });

  it('requires a query', () => {
    expect(kill((d) => delete d.query).map((e) => e.path)).toContain('query');
  });

  it.each([
    ['gracePeriodSeconds', -1, 'must not be negative'],
    ['gracePeriodSeconds', 1.5, 'whole number of seconds'],
    ['gracePeriodSeconds', '30', 'whole number of seconds'],
    ['gracePeriodSeconds', 3601, 'at most 3600 seconds'],
    ['timeoutSeconds', 86401, 'at most 86400 seconds'],
  ])('rejects %s = %j', (field, value, why) => {
    const errors = kill((d) => (d[field] = value));
    expect(errors[0]).toEqual({ path: field, message: expect.stringContaining(why) });
  });

  it.each([
    ['(a)\\1', 'invalid escape sequence'],
    ['(?=ru)', 'unsupported Perl syntax'],
    ['ru-(', 'missing closing )'],
  ])('rejects the name regex %j, which RE2 cannot run (%s)', (pattern, why) => {
    expect(kill((d) => (d.query.names = ['^ru-', pattern]))).toEqual(
      rejects('query.names[1]', why),
    );
  });

  it.each(['^ru-', 'readout.*[0-9]', '(a+)+$', '[^!]*[^!]*!'])(
    'accepts the name regex %j: it runs in linear time',
    (pattern) => {
      expect(kill((d) => (d.query.names = [pattern]))).toEqual([]);
    },
  );

  it('rejects a regex longer than 256 characters', () => {
    expect(kill((d) => (d.query.names = ['a'.repeat(257)]))).toEqual(rejects('query.names', '256'));
  });

  it('rejects malformed query selectors', () => {
    expect(kill((d) => (d.query.uuids = ['nope']))).toEqual(
      rejects('query.uuids', 'each uuid must be a UUID'),
    );
    expect(kill((d) => (d.query.user = 'a b'))).toEqual(rejects('query.user', 'user name'));
  });
});

describe('terminate, restart, flush, ps and logs commands', () => {
  it('terminate checks session, user and keepNamespace', () => {
    expect(errorsOf(CommandType.terminate, (d) => (d.keepNamespace = 'yes'))).toEqual(
      rejects('keepNamespace', 'boolean'),
    );
    expect(errorsOf(CommandType.terminate, (d) => (d.user = ''))).toEqual(
      rejects('user', 'user name'),
    );
  });

  it.each([CommandType.kill, CommandType.restart, CommandType.logs, CommandType.flush])(
    '%s carries the acting user, like boot and terminate',
    (type) => {
      expect(errorsOf(type, (d) => delete d.user)).toEqual(rejects('user', 'user name'));
      expect(errorsOf(type, (d) => (d.user = 'al ice'))).toEqual(rejects('user', 'user name'));
    },
  );

  it.each([CommandType.restart, CommandType.flush])(
    '%s takes only a query and the user',
    (type) => {
      expect(errorsOf(type, () => undefined)).toEqual([]);
      expect(errorsOf(type, (d) => (d.gracePeriodSeconds = 1))).toEqual(
        rejects('gracePeriodSeconds', 'not a known field'),
      );
    },
  );

  it.each([CommandType.ps])('%s takes only a query', (type) => {
    expect(errorsOf(type, () => undefined)).toEqual([]);
    expect(errorsOf(type, (d) => (d.gracePeriodSeconds = 1))).toEqual(
      rejects('gracePeriodSeconds', 'not a known field'),
    );
  });

  it('logs defaults tailLines to 100 and bounds it to 1..10000', () => {
    const example = EXAMPLE_EVENTS[CommandType.logs];
    const parsed = parseRecord(
      encodeEvent({ ...example, data: { query: example.data.query, user: example.data.user } })
        .value,
    );
    expect(parsed.ok && parsed.event.type === CommandType.logs && parsed.event.data.tailLines).toBe(
      100,
    );
    expect(errorsOf(CommandType.logs, (d) => (d.tailLines = 0))).toEqual(
      rejects('tailLines', 'at least 1'),
    );
    expect(errorsOf(CommandType.logs, (d) => (d.tailLines = 10001))).toEqual(
      rejects('tailLines', 'at most 10000'),
    );
    expect(errorsOf(CommandType.logs, (d) => (d.tailLines = 10000))).toEqual([]);
  });
});

describe('ps command', () => {
  const ps = (cursor: string) => errorsOf(CommandType.ps, (d) => (d.cursor = cursor));
  const uuid = '0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c';

  it.each(['ru-01', 'dummy_boot_0', 'RU.01', 'a/b'])(
    "accepts a cursor after drunc's name %j",
    (name) => expect(ps(`run-1/${name}/${uuid}`)).toEqual([]),
  );

  it.each(['run-1/ru 01/' + uuid, 'Run_1/ru-01/' + uuid, 'run-1//' + uuid, 'run-1/ru-01/x'])(
    'rejects the cursor %j',
    (cursor) => expect(ps(cursor)).toEqual(rejects('cursor', 'nextCursor of a ps completion')),
  );
});
