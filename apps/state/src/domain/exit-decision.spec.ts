import type { ExitPolicy, ProcessTerminated, Role } from '@kpm/contracts';
import { backoffSeconds, decideExit } from './exit-decision';

const NOW = Date.parse('2026-01-01T01:00:00.000Z');
const end = (exitCode: number, reason = exitCode === 0 ? 'Completed' : 'Error') =>
  ({
    uuid: '00000000-0000-4000-8000-000000000001',
    session: 'run-42',
    name: 'ru-01',
    user: 'daq',
    namespace: 'run-42',
    podName: 'ru-01',
    podUid: 'pod-1',
    exitCode,
    reason,
    phase: 'Failed',
    observedAt: new Date(NOW).toISOString(),
    detectedBy: 'watch',
  }) satisfies ProcessTerminated;

const POLICY: ExitPolicy = {
  rules: [
    { action: 'Ignore', exitCodes: { operator: 'In', values: [0] } },
    { action: 'FailSession', exitCodes: { operator: 'In', values: [139] } },
    { action: 'Restart', reasons: ['OOMKilled'], roles: ['application'] },
    { action: 'Count', roles: ['root-controller'] },
    { action: 'Restart', exitCodes: { operator: 'NotIn', values: [1, 2] } },
  ],
  maxRestarts: 2,
  windowSeconds: 600,
  backoffSeconds: 5,
  maxBackoffSeconds: 15,
};

describe('decideExit: the first rule whose every condition holds acts', () => {
  const cases: Array<[string, ProcessTerminated, Role, string, string, number | undefined]> = [
    ['exit 0 is ignored', end(0), 'application', 'Ignore', 'ignored', 0],
    ['139 fails the session', end(139), 'application', 'FailSession', 'session-failed', 1],
    [
      'OOMKilled application restarts',
      end(137, 'OOMKilled'),
      'application',
      'Restart',
      'scheduled',
      2,
    ],
    [
      'OOMKilled controller: rule 2 wants role application',
      end(137, 'OOMKilled'),
      'root-controller',
      'Count',
      'counted',
      3,
    ],
    [
      'exit 3 of an application restarts (NotIn 1, 2)',
      end(3),
      'application',
      'Restart',
      'scheduled',
      4,
    ],
    ['exit 2 matches no rule: counted', end(2), 'application', 'Count', 'counted', undefined],
  ];
  it.each(cases)('%s', (_, termination, role, action, outcome, rule) => {
    const { action: decided } = decideExit({ policy: POLICY, termination, role, now: NOW });
    expect(decided).toMatchObject({
      action,
      outcome,
      decidedBy: 'state',
      exitCode: termination.exitCode,
    });
    expect(decided.rule).toBe(rule);
  });
});

describe('decideExit: a restart within the budget of its window', () => {
  const restart = (recent: string[]) =>
    decideExit({
      policy: POLICY,
      termination: end(3),
      role: 'application',
      history: { restarts: recent.length, recentRestarts: recent },
      now: NOW,
    });
  const ago = (s: number) => new Date(NOW - s * 1000).toISOString();

  it('is attempt 1 of 2 after backoffSeconds, remembering when it was decided', () => {
    const { action, history } = restart([]);
    expect(action).toMatchObject({ attempt: 1, of: 2, windowSeconds: 600 });
    expect(action.dueAt).toBe(new Date(NOW + 5000).toISOString());
    expect(history.recentRestarts).toEqual([new Date(NOW).toISOString()]);
    expect(action.message).toBe('exit 3 (Error) matched rules[4]: restart 1 of 2 in 5 s');
  });

  it('doubles the backoff for attempt 2', () => {
    const { action } = restart([ago(60)]);
    expect(action).toMatchObject({ attempt: 2, outcome: 'scheduled' });
    expect(action.dueAt).toBe(new Date(NOW + 10_000).toISOString());
  });

  it('leaves the process DEAD once the budget is spent, saying so', () => {
    const { action } = restart([ago(120), ago(60)]);
    expect(action).toMatchObject({ outcome: 'exhausted', of: 2 });
    expect(action.commandId).toBeUndefined();
    expect(action.message).toContain('restart budget spent (2 of 2 in 600 s), left DEAD');
  });

  it('does not count restarts older than the window', () => {
    const { action, history } = restart([ago(900), ago(60)]);
    expect(action).toMatchObject({ outcome: 'scheduled', attempt: 2 });
    expect(history.recentRestarts).toHaveLength(2);
  });

  it('gives the same command id for the same end, another for the next', () => {
    const a = restart([]).action.commandId;
    expect(restart([]).action.commandId).toBe(a);
    const next = decideExit({
      policy: POLICY,
      termination: { ...end(3), podUid: 'pod-2' },
      role: 'application',
      now: NOW,
    });
    expect(next.action.commandId).not.toBe(a);
  });
});

it.each([
  [1, 5],
  [2, 10],
  [3, 15],
  [9, 15],
])('backoff before attempt %i is %i s (5 s doubled, at most 15 s)', (attempt, seconds) => {
  expect(backoffSeconds(POLICY, attempt)).toBe(seconds);
});

it('defaults: 10 s doubling up to 300 s, 3 restarts in 600 s', () => {
  const policy: ExitPolicy = { rules: [{ action: 'Restart' }] };
  expect([1, 2, 6].map((a) => backoffSeconds(policy, a))).toEqual([10, 20, 300]);
  const { action } = decideExit({ policy, termination: end(1), role: 'unknown', now: NOW });
  expect(action).toMatchObject({ of: 3, windowSeconds: 600, attempt: 1 });
});
