import type { ProcessQuery } from '@kpm/contracts';
import { selectOne } from './exactly-one';
import { EMPTY_QUERY } from './kill-handler';
import type { ProcessPod } from '../cluster/process-pod';

const process = (name: string, uuid: string, session = 'run-7', user = 'alice'): ProcessPod => ({
  name,
  podName: name,
  uuid,
  session,
  user,
  role: 'application',
  pod: {},
});
const running = [
  process('ru-01', 'u-1'),
  process('ru-02', 'u-2'),
  process('tp-01', 'u-3', 'run-8', 'bob'),
];
const alice = { user: 'alice', operators: ['shifter'] };
const cluster = { processes: () => Promise.resolve(running) };

describe('selectOne', () => {
  it('refuses the one process of another session than the command’s subject, naming it', async () => {
    expect(await selectOne(cluster, { uuids: ['u-1'] }, 'logs', alice, 'run-8')).toEqual({
      ok: false,
      errors: [
        {
          path: 'query',
          message:
            'selects processes of other sessions than the command\'s subject "run-8": ru-01 (run-7); a command acts on one session, send one per session',
        },
      ],
    });
  });

  it.each<[string, ProcessQuery, unknown]>([
    ['an empty query', {}, { ok: false, errors: [EMPTY_QUERY] }],
    ['one process', { uuids: ['u-2'] }, { ok: true, process: running[1] }],
    [
      "another user's process",
      { uuids: ['u-3'] },
      {
        ok: false,
        errors: [{ path: 'query', message: 'session "run-8" belongs to user "bob", not "alice"' }],
      },
    ],
    [
      'none',
      { uuids: ['u-9'] },
      {
        ok: false,
        errors: [{ path: 'query', message: 'selects no process; logs needs exactly one' }],
      },
    ],
    [
      'several',
      { session: 'run-7' },
      {
        ok: false,
        errors: [
          {
            path: 'query',
            message: expect.stringMatching(/^selects 2 processes \(.*\); logs needs exactly one$/),
          },
        ],
      },
    ],
  ])('%s', async (_, query, outcome) => {
    expect(await selectOne(cluster, query, 'logs', alice, 'run-7')).toEqual(outcome);
  });

  it("lets an operator select another user's process", async () => {
    const shifter = { user: 'shifter', operators: ['shifter'] };
    expect(await selectOne(cluster, { uuids: ['u-3'] }, 'logs', shifter, 'run-8')).toEqual({
      ok: true,
      process: running[2],
    });
  });
});
