import { randomBytes } from 'node:crypto';
import { CommandType } from '@kpm/contracts';

/**
 * Hostile records for `kpm.commands`, each with the one answer kpm must give
 * (docs/design.md §3.3, §6.7): a dead letter with its reason, or a rejection naming each field
 * and why. Pure data: the suite sends them and checks the answers.
 */

const MiB = 1024 * 1024;

export interface HostileContext {
  /** A session kpm created for alice, running `long` (a 63-character name) and `ru-01`. */
  owned: string;
  /** A session nobody has booted. */
  fresh: string;
  /** The label domain of the boot-worker under test. */
  domain: string;
  /** The uuid of `ru-01` in `owned`. */
  ownedUuid: string;
}

/** What kpm must answer. */
export type Expected =
  { deadLetter: string | RegExp } | { rejected: Array<[path: string, message: string]> };

export interface HostileCase {
  label: string;
  /** The record's value; a string is sent as UTF-8. */
  value: Buffer | string | null;
  key: string | null;
  expected: Expected;
  /** The command id the answer names (rejections only). */
  id?: string;
}

export const LONG_NAME = 'a'.repeat(63);
/** Polynomial on a backtracking engine: hundreds of ms at 20 characters, hours at 63. */
export const POLYNOMIAL = '[^!]*'.repeat(10) + '!';
/** Exponential on a backtracking engine, on a name of a's that has no b. */
export const EXPONENTIAL = '(a+)+b';
export const EXPONENTIAL_ALTERNATION = '(a|aa)+b';

const app = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  treeId: '1.1.1',
  executableAndArguments: [{ exec: 'daq_application', args: ['--name', name] }],
  ...extra,
});

function envelope(id: string, type: string, subject: string | undefined, data: unknown) {
  return {
    specversion: '1.0',
    id,
    source: '/kpm/test/hostile',
    type,
    time: new Date().toISOString(),
    ...(subject === undefined ? {} : { subject }),
    datacontenttype: 'application/json',
    data,
  };
}

/** A command record: a CloudEvent keyed by its subject, with `edit` applied to the envelope. */
/** Commands that act on a session carry its owner (alice), unless the case sets its own user. */
const ACTING = new Set<string>([
  CommandType.kill,
  CommandType.restart,
  CommandType.logs,
  CommandType.flush,
]);

function withOwner(type: string, data: unknown): unknown {
  const plain = typeof data === 'object' && data !== null && !Array.isArray(data);
  return ACTING.has(type) && plain && !('user' in data) ? { ...data, user: 'alice' } : data;
}

function command(
  label: string,
  type: string,
  subject: string,
  data: unknown,
  expected: Array<[string, string]>,
  edit: (event: Record<string, unknown>) => void = () => undefined,
  key: string | null = subject,
): HostileCase {
  const id = `hostile-${label}`;
  const event: Record<string, unknown> = envelope(id, type, subject, withOwner(type, data));
  edit(event);
  return {
    label,
    id: typeof event.id === 'string' ? event.id : id,
    value: JSON.stringify(event),
    key,
    expected: { rejected: expected },
  };
}

function dead(label: string, value: Buffer | string | null, reason: string | RegExp, key = 'x') {
  return { label, value, key, expected: { deadLetter: reason } };
}

export function deadLetterCases(c: HostileContext): HostileCase[] {
  const boot = envelope('hostile-dl', CommandType.boot, c.fresh, { session: c.fresh });
  const without = (name: string) => JSON.stringify({ ...boot, [name]: undefined });
  return [
    dead('garbage-1B', 'x', `not UTF-8 JSON: Unexpected token 'x', "x" is not valid JSON`),
    dead('garbage-1MiB', randomBytes(MiB), /^not UTF-8 JSON: /),
    dead('garbage-7MiB', randomBytes(7 * MiB), /^not UTF-8 JSON: /),
    dead('json-7MiB-of-spaces', ' '.repeat(7 * MiB) + '{', /^not UTF-8 JSON: /),
    dead('empty', Buffer.alloc(0), /^not UTF-8 JSON: Unexpected end of JSON input/),
    dead('tombstone', null, 'the record has no value (a tombstone)'),
    dead('array', '[1,2]', 'not a JSON object but an array'),
    dead('null', 'null', 'not a JSON object but null'),
    dead('string', '"boot"', 'not a JSON object but string'),
    dead('number', '42', 'not a JSON object but number'),
    dead(
      'no-specversion',
      without('specversion'),
      'missing the CloudEvents attribute "specversion"',
    ),
    dead('no-id', without('id'), 'missing the CloudEvents attribute "id"'),
    dead('no-source', without('source'), 'missing the CloudEvents attribute "source"'),
    dead('no-type', without('type'), 'missing the CloudEvents attribute "type"'),
    dead(
      'specversion-0.3',
      JSON.stringify({ ...boot, specversion: '0.3' }),
      'CloudEvents specversion "0.3" is not supported (only 1.0)',
    ),
    dead(
      'id-257',
      JSON.stringify({ ...boot, id: 'i'.repeat(257) }),
      'the CloudEvents attribute "id" is 257 characters, at most 256: it cannot be answered',
    ),
    dead(
      'id-4MiB',
      JSON.stringify({ ...boot, id: 'i'.repeat(4 * MiB) }),
      `the CloudEvents attribute "id" is ${4 * MiB} characters, at most 256: it cannot be answered`,
    ),
  ];
}

/** Wrong, missing and extra CloudEvent attributes; oversize envelope fields. */
export function envelopeCases(c: HostileContext): HostileCase[] {
  const boot = { session: c.fresh, user: 'alice', processes: [app('ru-01')] };
  const b = (
    label: string,
    expected: Array<[string, string]>,
    edit: (e: Record<string, unknown>) => void,
  ) => command(label, CommandType.boot, c.fresh, boot, expected, edit);
  return [
    b(
      'type-4MiB',
      [
        ['type', 'must be shorter than or equal to 256 characters'],
        ['type', 'unknown type "ttttt'],
      ],
      (e) => (e.type = 't'.repeat(4 * MiB)),
    ),
    b(
      'source-4MiB',
      [['source', 'must be shorter than or equal to 1024 characters']],
      (e) => (e.source = 's'.repeat(4 * MiB)),
    ),
    b(
      'subject-4MiB',
      [
        ['key', `"${c.fresh}" must equal the subject "xxxx`],
        ['subject', 'must be shorter than or equal to 256 characters'],
      ],
      (e) => (e.subject = 'x'.repeat(4 * MiB)),
    ),
    b(
      'unknown-type',
      [['type', 'unknown type "daq.kpm.command.reboot.v1"']],
      (e) => (e.type = 'daq.kpm.command.reboot.v1'),
    ),
    b(
      'fact-type-on-commands',
      [['type', 'type "daq.kpm.boot.accepted.v1" is not expected here']],
      (e) => {
        e.type = 'daq.kpm.boot.accepted.v1';
        e.data = {
          commandId: 'c',
          session: c.fresh,
          user: 'alice',
          processes: [{ uuid: c.ownedUuid, name: 'ru-01', role: 'application' }],
        };
      },
    ),
    b(
      'data-base64',
      [['data_base64', 'binary data is not supported']],
      (e) => (e.data_base64 = 'aGk='),
    ),
    b('extra-attribute', [['Foo', 'is not a CloudEvents attribute']], (e) => (e.Foo = 1)),
    b(
      'many-extra-attributes',
      [
        ...Array.from({ length: 100 }, (_, i): [string, string] => [
          `X${i}`,
          'is not a CloudEvents attribute',
        ]),
        ['(more)', '900 more errors not listed'],
      ],
      (e) => {
        for (let i = 0; i < 1000; i++) e[`X${i}`] = i;
      },
    ),
    b(
      'content-type',
      [['datacontenttype', 'must be "application/json"']],
      (e) => (e.datacontenttype = 'text/plain'),
    ),
    b('time', [['time', 'must be an RFC 3339 timestamp']], (e) => (e.time = 'yesterday')),
    b('no-data', [['data', 'is required']], (e) => delete e.data),
    b('data-array', [['data', 'must be a JSON object']], (e) => (e.data = [boot])),
    b(
      'no-subject',
      [['subject', 'is required: it is the session (and the record key)']],
      (e) => delete e.subject,
    ),
    command('subject-mismatch', CommandType.boot, c.owned, boot, [
      ['subject', `"${c.owned}" must equal the session "${c.fresh}"`],
    ]),
    command(
      'key-not-subject',
      CommandType.boot,
      c.fresh,
      boot,
      [['key', `"${c.owned}" must equal the subject "${c.fresh}"`]],
      undefined,
      c.owned,
    ),
    command(
      'no-key',
      CommandType.boot,
      c.fresh,
      boot,
      [['key', `no key must equal the subject "${c.fresh}"`]],
      undefined,
      null,
    ),
  ];
}

/** Every field of every command type out of range. */
export function fieldCases(c: HostileContext): HostileCase[] {
  const bootOf = (
    label: string,
    processes: unknown,
    expected: Array<[string, string]>,
    extra = {},
  ) =>
    command(
      label,
      CommandType.boot,
      c.fresh,
      { session: c.fresh, user: 'alice', processes, ...extra },
      expected,
    );
  const one = (label: string, spec: Record<string, unknown>, path: string, message: string) =>
    bootOf(label, [app('ru-01', spec)], [[`processes[0].${path}`, message]]);
  const kill = (label: string, data: Record<string, unknown>, expected: Array<[string, string]>) =>
    command(label, CommandType.kill, c.owned, { query: { session: c.owned }, ...data }, expected);
  const q = (
    label: string,
    type: string,
    query: unknown,
    expected: Array<[string, string]>,
    extra = {},
  ) => command(label, type, c.owned, { query, ...extra }, expected);
  return [
    bootOf(
      'boot-1MiB-of-empty-processes',
      Array.from({ length: MiB / 3 }, () => ({})),
      [['processes', 'must list at most 5000 processes']],
    ),
    bootOf(
      'boot-5001-processes',
      Array.from({ length: 5001 }, (_, i) => app(`p-${i}`)),
      [['processes', 'must list at most 5000 processes']],
    ),
    bootOf('boot-no-processes', [], [['processes', 'must list at least one process']]),
    bootOf(
      'boot-5000-empty-processes',
      Array.from({ length: 5000 }, () => ({})),
      [
        ...Array.from({ length: 50 }, (_, i): Array<[string, string]> => [
          [`processes[${i}].name`, 'must be a process name'],
          [`processes[${i}].executableAndArguments`, 'must be an array'],
        ]).flat(),
        ['(more)', '9900 more errors not listed'],
      ],
    ),
    command(
      'boot-bad-session',
      CommandType.boot,
      'Bad_Session',
      { session: 'Bad_Session', user: 'alice', processes: [app('a')] },
      [['session', 'must be a DNS-1123 label']],
    ),
    bootOf('boot-bad-user', [app('a')], [['user', 'must be a user name']], { user: 'a b' }),
    one('name-space', { name: 'RU 01' }, 'name', 'must be a process name'),
    one('name-254', { name: 'a'.repeat(254) }, 'name', 'must be a process name'),
    bootOf(
      'duplicate-name',
      [app('a'), app('a')],
      [['processes[1].name', 'duplicate name "a" (also processes[0])']],
    ),
    one('logs-traversal', { logsPath: '/var/log/../../etc' }, 'logsPath', 'path traversal'),
    one(
      'exec-dir-relative',
      { executionDirectory: 'opt/daq' },
      'executionDirectory',
      'must be an absolute path',
    ),
    one(
      'data-traversal',
      { restriction: { dataMount: '/data/../../root' } },
      'restriction.dataMount',
      'path traversal',
    ),
    one('env-bad-key', { env: { '1X': 'v' } }, 'env', 'key "1X"'),
    one('env-4MiB-key', { env: { ['-' + 'K'.repeat(4 * MiB)]: 'v' } }, 'env', 'characters)'),
    one(
      '65-commands',
      { executableAndArguments: Array.from({ length: 65 }, () => ({ exec: 'x' })) },
      'executableAndArguments',
      'must have at most 64 items',
    ),
    one(
      '1001-args',
      { executableAndArguments: [{ exec: 'x', args: Array.from({ length: 1001 }, () => 'a') }] },
      'executableAndArguments[0].args',
      'must have at most 1000 items',
    ),
    one('unknown-field', { imag: 'x' }, 'imag', 'is not a known field'),
    one(
      'label-bad-key',
      { labels: { 'bad key': 'v' } },
      'labels',
      'key "bad key" is not a valid Kubernetes label key',
    ),
    one(
      'quantity',
      { resources: { limits: { cpu: 'lots' } } },
      'resources.limits',
      'is not a Kubernetes quantity',
    ),
    one('tree-id', { treeId: 'root' }, 'treeId', 'must be dot-separated numbers'),
    one(
      '101-hosts',
      { restriction: { allowedHosts: Array.from({ length: 101 }, (_, i) => `n${i}`) } },
      'restriction.allowedHosts',
      'must have at most 100 items',
    ),
    one('uuid-not-uuid', { uuid: 'nope' }, 'uuid', 'must be a UUID'),
    kill('kill-grace-negative', { gracePeriodSeconds: -1 }, [
      ['gracePeriodSeconds', 'must not be negative'],
    ]),
    kill('kill-grace-3601', { gracePeriodSeconds: 3601 }, [
      ['gracePeriodSeconds', 'must be at most 3600 seconds'],
    ]),
    kill('kill-grace-fraction', { gracePeriodSeconds: 1.5 }, [
      ['gracePeriodSeconds', 'must be a whole number of seconds'],
    ]),
    kill('kill-timeout-86401', { timeoutSeconds: 86401 }, [
      ['timeoutSeconds', 'must be at most 86400 seconds'],
    ]),
    command('kill-no-query', CommandType.kill, c.owned, {}, [['query', 'is required']]),
    q('kill-uuids', CommandType.kill, { uuids: ['nope'] }, [
      ['query.uuids', 'each uuid must be a UUID'],
    ]),
    q(
      'kill-5001-uuids',
      CommandType.kill,
      { uuids: Array.from({ length: 5001 }, () => c.ownedUuid) },
      [['query.uuids', 'must have at most 5000 items']],
    ),
    command(
      'terminate-keep',
      CommandType.terminate,
      c.owned,
      { session: c.owned, user: 'alice', keepNamespace: 'yes' },
      [['keepNamespace', 'must be a boolean value']],
    ),
    command(
      'terminate-timeout',
      CommandType.terminate,
      c.owned,
      { session: c.owned, user: 'alice', timeoutSeconds: -5 },
      [['timeoutSeconds', 'must not be negative']],
    ),
    q(
      'logs-tail-0',
      CommandType.logs,
      { session: c.owned, names: ['^ru-01$'] },
      [['tailLines', 'must be at least 1']],
      { tailLines: 0 },
    ),
    q(
      'logs-tail-10001',
      CommandType.logs,
      { session: c.owned, names: ['^ru-01$'] },
      [['tailLines', 'must be at most 10000']],
      { tailLines: 10001 },
    ),
    q('ps-limit-0', CommandType.ps, { session: c.owned }, [['limit', 'must be at least 1']], {
      limit: 0,
    }),
    q(
      'ps-limit-10001',
      CommandType.ps,
      { session: c.owned },
      [['limit', 'must be at most 10000']],
      { limit: 10001 },
    ),
    q(
      'ps-cursor',
      CommandType.ps,
      { session: c.owned },
      [['cursor', 'must be the nextCursor of a ps completion']],
      { cursor: '../etc' },
    ),
    q('flush-session', CommandType.flush, { session: 'Bad' }, [
      ['query.session', 'must be a DNS-1123 label'],
    ]),
  ];
}

/** Name patterns RE2 cannot run, in every command that takes one. */
export function regexRefusals(c: HostileContext): HostileCase[] {
  const cases: HostileCase[] = [];
  const types = [
    CommandType.kill,
    CommandType.restart,
    CommandType.logs,
    CommandType.ps,
    CommandType.flush,
  ];
  const patterns: Array<[string, string, string]> = [
    ['backreference', '(a)\\1', 'is not valid RE2 syntax'],
    ['lookahead', '(?=a)a', 'is not valid RE2 syntax'],
    ['257-chars', 'a'.repeat(257), 'must be shorter than or equal to 256 characters'],
  ];
  for (const type of types) {
    for (const [what, pattern, message] of patterns) {
      const verb = type.split('.')[3];
      const path = what === '257-chars' ? 'query.names' : 'query.names[0]';
      cases.push(
        command(
          `regex-${what}-${verb}`,
          type,
          c.owned,
          { query: { session: c.owned, names: [pattern] } },
          [[path, message]],
        ),
      );
    }
  }
  return cases;
}

/** What no pod may ask of its node, and a uuid another session owns (the boot-worker's rules). */
export function podCases(c: HostileContext): HostileCase[] {
  const allowed = 'allowed: /log, /var/log/daq, /data, /home (podManagement.hostPathPrefixes)';
  const one = (label: string, spec: Record<string, unknown>, path: string, message: string) =>
    command(
      label,
      CommandType.boot,
      c.fresh,
      { session: c.fresh, user: 'alice', processes: [app('ru-01', spec)] },
      [[`processes[0].${path}`, message]],
    );
  const exposes = (path: string) => `"${path}" would expose the node; ${allowed}`;
  return [
    one('hostpath-etc', { logsPath: '/etc' }, 'logsPath', exposes('/etc')),
    one(
      'hostpath-root',
      { restriction: { dataMount: '/' } },
      'restriction.dataMount',
      exposes('/'),
    ),
    one('hostpath-proc', { logsPath: '/proc/1/root' }, 'logsPath', exposes('/proc/1/root')),
    one('hostpath-sys', { logsPath: '/sys/kernel' }, 'logsPath', exposes('/sys/kernel')),
    one(
      'hostpath-root-home',
      { restriction: { dataMount: '/root' } },
      'restriction.dataMount',
      exposes('/root'),
    ),
    one(
      'hostpath-docker-sock',
      { restriction: { dataMount: '/var/run/docker.sock' } },
      'restriction.dataMount',
      exposes('/var/run/docker.sock'),
    ),
    one(
      'hostpath-kubelet',
      { logsPath: '/var/lib/kubelet/pods' },
      'logsPath',
      exposes('/var/lib/kubelet/pods'),
    ),
    one(
      'hostpath-outside',
      { logsPath: '/opt/daq' },
      'logsPath',
      `"/opt/daq" is not under an allowed host path prefix; ${allowed}`,
    ),
    one('hostpath-double-slash', { logsPath: '//etc//' }, 'logsPath', exposes('/etc')),
    one(
      'privileged-not-allowed',
      { annotations: { [`${c.domain}/privileged`]: 'true' } },
      'annotations',
      'asks for a privileged container, which this boot-worker does not allow (podManagement.allowPrivileged)',
    ),
    one(
      'annotation-kubernetes',
      { annotations: { 'kubernetes.io/psp': 'x' } },
      'annotations',
      'key "kubernetes.io/psp" is reserved for Kubernetes',
    ),
    one(
      'annotation-apparmor',
      { annotations: { 'container.apparmor.security.beta.kubernetes.io/ru-01': 'unconfined' } },
      'annotations',
      'is reserved for Kubernetes',
    ),
    one(
      'annotation-seccomp',
      { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } },
      'annotations',
      'is reserved for Kubernetes',
    ),
    one(
      'annotation-kpm',
      { annotations: { [`${c.domain}/process-spec`]: '{}' } },
      'annotations',
      `key "${c.domain}/process-spec" is reserved for kpm`,
    ),
    one(
      'label-k8s',
      { labels: { 'k8s.io/owner': 'x' } },
      'labels',
      'key "k8s.io/owner" is reserved for Kubernetes',
    ),
    one(
      'label-kpm',
      { labels: { [`uuid.${c.domain}`]: 'forged' } },
      'labels',
      `key "uuid.${c.domain}" is reserved for kpm`,
    ),
    one(
      'uuid-of-another-session',
      { uuid: c.ownedUuid },
      'uuid',
      `uuid ${c.ownedUuid} is already used by process "ru-01" in session "${c.owned}"`,
    ),
  ];
}
