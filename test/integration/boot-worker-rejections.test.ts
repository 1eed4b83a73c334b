import { CommandType, ProcessEventType } from '@kpm/contracts';
import { podNameOf } from '@kpm/kube';
import { BootWorkerHarness } from '../support/boot-worker-harness';

/**
 * Bad input on the real stack (docs/design.md §6.7): each kind ends in one `command.rejected`
 * naming the field and the reason, changes nothing in the cluster, and the next good command still
 * works.
 */
jest.setTimeout(180_000);

const { commandRejected, processBooted, bootAccepted, killAccepted } = ProcessEventType;
const app = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  treeId: '1.1.1',
  executableAndArguments: [{ exec: 'daq_application', args: ['--name', name] }],
  ...extra,
});

let h: BootWorkerHarness;
let owned: string;
let fresh: string;

beforeAll(async () => {
  h = await BootWorkerHarness.start('bwr', {
    KPM_ALLOWED_IMAGES: 'kpm.invalid/*',
    KPM_DEFAULT_IMAGE: 'kpm.invalid/daq-app:1.0',
    KPM_OPERATOR_USERS: 'shifter',
    // Only alice and mallory are mapped, and there is no default: daq's processes have no uid.
    KPM_RUN_AS_USERS: 'alice:1000:1000,mallory:1001:1001',
    KPM_DEFAULT_RUN_AS: '',
  });
  owned = h.session('owned');
  fresh = h.session('fresh');
  await h.send('boot-owned', CommandType.boot, {
    session: owned,
    user: 'alice',
    processes: [app('ru-01'), app('ru-02')],
  });
  await h.factCount(processBooted, 'boot-owned', 2);
}, 120_000);

afterAll(() => h?.close(), 120_000);

type Case = [id: string, type: string, data: () => unknown, path: string, why: () => string];

const cases: Case[] = [
  [
    'bad-name',
    CommandType.boot,
    () => boot(fresh, [app('RU 01')]),
    'processes[0].name',
    () => 'must be a process name of 1 to 253 characters without whitespace or control characters',
  ],
  [
    'duplicate-name',
    CommandType.boot,
    () => boot(fresh, [app('a'), app('a')]),
    'processes[1].name',
    () => 'duplicate name "a" (also processes[0])',
  ],
  [
    'logs-traversal',
    CommandType.boot,
    () => boot(fresh, [app('a', { logsPath: '/var/log/../../etc' })]),
    'processes[0].logsPath',
    () => 'path traversal',
  ],
  [
    'data-traversal',
    CommandType.boot,
    () => boot(fresh, [app('a', { restriction: { dataMount: '/data/../../root' } })]),
    'processes[0].restriction.dataMount',
    () => 'path traversal',
  ],
  [
    'unmapped-user',
    CommandType.boot,
    () => ({ ...boot(fresh, [app('a')]), user: 'daq' }),
    'processes[0].uid',
    () =>
      'user "daq" has no uid or gid to run the process as, and kpm runs no DAQ process as its ' +
      "image's user (root in most images): map the user in podManagement.runAsUsers " +
      '(KPM_RUN_AS_USERS=daq:<uid>:<gid>), set podManagement.defaultRunAs ' +
      '(KPM_DEFAULT_RUN_AS=<uid>:<gid>), or give the process its own uid and gid ' +
      '(within podManagement.runAsUidRange and runAsGidRange)',
  ],
  [
    'unknown-field',
    CommandType.boot,
    () => boot(fresh, [app('a', { imag: 'x' })]),
    'processes[0].imag',
    () => 'is not a known field',
  ],
  [
    'non-re2-regex',
    CommandType.kill,
    () => ({ query: { session: owned, names: ['(a)\\1'] }, user: 'alice' }),
    'query.names[0]',
    () => 'is not valid RE2 syntax',
  ],
  [
    'unknown-type',
    'daq.kpm.command.reboot.v1',
    () => ({ session: owned }),
    'type',
    () => 'unknown type "daq.kpm.command.reboot.v1"',
  ],
  [
    'image',
    CommandType.boot,
    () => boot(fresh, [app('a', { image: 'docker.io/evil/miner:1' })]),
    'processes[0].image',
    () => 'image "docker.io/evil/miner:1" is not in the allow-list (kpm.invalid/*)',
  ],
  [
    'privileged',
    CommandType.boot,
    () => boot(fresh, [app('a', { annotations: { [`${h.domain}/privileged`]: 'true' } })]),
    'processes[0].annotations',
    () => 'asks for a privileged container, which this boot-worker does not allow',
  ],
  [
    'pod-name-twin',
    CommandType.boot,
    () => boot(fresh, [app('dummy_boot_0'), app(podNameOf('dummy_boot_0'))]),
    'processes[1].name',
    () =>
      `would name its pod "${podNameOf('dummy_boot_0')}", as processes[0] "dummy_boot_0" does: rename one of them`,
  ],
  [
    'reserved-label',
    CommandType.boot,
    () => boot(fresh, [app('a', { labels: { [h.labels.uuid]: 'forged' } })]),
    'processes[0].labels',
    () => `key "${h.labels.uuid}" is reserved for kpm`,
  ],
  [
    'foreign-session',
    CommandType.boot,
    () => ({ ...boot(owned, [app('ru-09')]), user: 'mallory' }),
    'session',
    () => `session "${owned}" belongs to user "alice", not "mallory"`,
  ],
  [
    'name-running',
    CommandType.boot,
    () => boot(owned, [app('ru-01')]),
    'processes[0].name',
    () => `"ru-01" is already running in session "${owned}"`,
  ],
  [
    'restart-none',
    CommandType.restart,
    () => ({ query: { session: owned, names: ['^nothing$'] }, user: 'alice' }),
    'query',
    () => 'selects no process to restart',
  ],
  [
    'logs-none',
    CommandType.logs,
    () => ({ query: { session: owned, names: ['^nothing$'] }, user: 'alice' }),
    'query',
    () => 'selects no process; logs needs exactly one',
  ],
  [
    'kill-empty',
    CommandType.kill,
    () => ({ query: {}, user: 'alice' }),
    'query',
    () => 'is empty: it selects no process',
  ],
  [
    'kill-foreign',
    CommandType.kill,
    () => ({ query: { session: owned }, user: 'mallory' }),
    'query',
    () => `session "${owned}" belongs to user "alice", not "mallory"`,
  ],
  [
    'kill-foreign-by-user',
    CommandType.kill,
    () => ({ query: { names: ['^ru-0[12]$'], user: 'alice' }, user: 'mallory' }),
    'query',
    () => `session "${owned}" belongs to user "alice", not "mallory"`,
  ],
  [
    'restart-foreign',
    CommandType.restart,
    () => ({ query: { session: owned, names: ['^ru-01$'] }, user: 'mallory' }),
    'query',
    () => `session "${owned}" belongs to user "alice", not "mallory"`,
  ],
  [
    'logs-foreign',
    CommandType.logs,
    () => ({ query: { session: owned, names: ['^ru-01$'] }, user: 'mallory' }),
    'query',
    () => `session "${owned}" belongs to user "alice", not "mallory"`,
  ],
  [
    'terminate-foreign',
    CommandType.terminate,
    () => ({ session: owned, user: 'mallory' }),
    'session',
    () => `session "${owned}" belongs to user "alice", not "mallory"`,
  ],
];

function boot(session: string, processes: unknown[]) {
  return { session, user: 'alice', processes };
}

describe('bad input', () => {
  it.each(cases)('%s (%s) is rejected naming the field', async (id, type, data, path, why) => {
    const subject = id === 'kill-empty' || id === 'kill-foreign-by-user' ? owned : undefined;
    await h.send(id, type, data(), subject);
    const rejected = await h.fact(commandRejected, id);
    expect(rejected.data).toEqual({
      commandId: id,
      commandType: type,
      errors: [{ path, message: expect.stringContaining(why()) }],
    });
  });

  it('a subject that is not the session is refused before anything runs', async () => {
    await h.send('subject-mismatch', CommandType.boot, boot(fresh, [app('a')]), owned);
    const rejected = await h.fact(commandRejected, 'subject-mismatch');
    expect(rejected.data.errors).toEqual([
      { path: 'subject', message: expect.stringContaining(`must equal the session "${fresh}"`) },
    ]);
  });

  it('changed nothing: no accepted facts, no namespace, the owned session untouched', async () => {
    for (const [id] of cases) {
      expect(h.facts(bootAccepted, id)).toEqual([]);
      expect(h.facts(killAccepted, id)).toEqual([]);
    }
    expect(await h.namespaceExists(fresh)).toBe(false);
    const pods = await h.pods(owned);
    expect(pods.map((p) => p.metadata!.name).sort()).toEqual(['ru-01', 'ru-02']);
    expect(pods.every((p) => !p.metadata!.deletionTimestamp)).toBe(true);
  });

  it("an operator may act on another user's session", async () => {
    await h.send('logs-operator', CommandType.logs, {
      query: { session: owned, names: ['^ru-01$'] },
      user: 'shifter',
    });
    const fetched = await h.fact(ProcessEventType.logsFetched, 'logs-operator');
    expect(fetched.data.commandId).toBe('logs-operator');
    expect(h.facts(commandRejected, 'logs-operator')).toEqual([]);
  });

  it('the next good command still works', async () => {
    await h.send('good-after', CommandType.boot, boot(fresh, [app('ru-01'), app('ru-02')]));
    const booted = await h.factCount(processBooted, 'good-after', 2);
    expect(booted.map((e) => (e.data.process as { podName: string }).podName).sort()).toEqual([
      'ru-01',
      'ru-02',
    ]);
  });
});
