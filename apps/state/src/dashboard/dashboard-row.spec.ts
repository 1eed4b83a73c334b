import type { ProcessInstance } from '@kpm/contracts';
import { dashboardRow } from './dashboard-row';

const instance = (extra: Partial<ProcessInstance> = {}): ProcessInstance => ({
  uuid: '0b7e43a5-9050-409f-be9b-dd90ca7af259',
  description: {
    metadata: { user: 'daq', session: 'run-1', name: 'ru-01', treeId: '0.1.1' },
    env: { SECRET_LOOKING: 'x' },
    executableAndArguments: [{ exec: 'daq_application', args: ['--name', 'ru-01'] }],
  },
  restriction: { allowedHosts: ['kpm-node-1'] },
  statusCode: 'RUNNING',
  namespace: 'run-1',
  podName: 'ru-01',
  podUid: 'p-1',
  nodeName: 'kpm-node-1',
  role: 'application',
  bootedAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});

describe('dashboardRow', () => {
  it('keeps the columns and leaves the spec for the details view', () => {
    expect(dashboardRow(instance())).toEqual({
      uuid: '0b7e43a5-9050-409f-be9b-dd90ca7af259',
      session: 'run-1',
      user: 'daq',
      name: 'ru-01',
      treeId: '0.1.1',
      role: 'application',
      status: 'RUNNING',
      node: 'kpm-node-1',
      pod: 'ru-01',
      bootedAt: '2026-01-01T00:00:00.000Z',
    });
  });

  it.each([
    [
      'an exit code of 0 is kept',
      { statusCode: 'DEAD', returnCode: 0, reason: 'Completed' },
      { exitCode: 0, reason: 'Completed' },
    ],
    [
      'a failure',
      {
        statusCode: 'DEAD',
        returnCode: 3,
        reason: 'Error',
        terminatedAt: '2026-01-01T00:01:00.000Z',
      },
      { exitCode: 3, terminatedAt: '2026-01-01T00:01:00.000Z' },
    ],
  ] as const)('%s', (_case, extra, expected) => {
    expect(dashboardRow(instance(extra as Partial<ProcessInstance>))).toMatchObject(expected);
  });

  it("carries the automatic restarts and the exit policy's last step, in words", () => {
    const last = {
      decidedBy: 'state',
      decidedAt: '2026-01-01T00:01:00.000Z',
      uuid: 'u',
      podUid: 'p',
      exitCode: 3,
      reason: 'Error',
      action: 'Restart',
      outcome: 'exhausted',
      message: 'exit 3 (Error) matched rules[0]: restart budget spent (1 of 1 in 600 s), left DEAD',
    } as const;
    const row = dashboardRow(instance({ automatic: { restarts: 1, recentRestarts: [], last } }));
    expect(row).toMatchObject({ restarts: 1, automatic: `exhausted: ${last.message}` });
    expect(dashboardRow(instance({}))).not.toHaveProperty('restarts');
  });

  it('has no node while the pod is not scheduled', () => {
    expect(dashboardRow(instance({ nodeName: undefined }))).not.toHaveProperty('node');
  });
});
