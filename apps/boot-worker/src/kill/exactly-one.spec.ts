import type { ProcessQuery } from '@kpm/contracts';
import { selectOne } from './exactly-one';
import { EMPTY_QUERY } from './kill-handler';
import type { ProcessPod } from './process-pod';

const process = (name: string, uuid: string): ProcessPod => ({
  name,
  uuid,
  session: 'run-7',
  role: 'application',
  pod: {},
});
const running = [process('ru-01', 'u-1'), process('ru-02', 'u-2')];
const cluster = { processes: () => Promise.resolve(running) };

describe('selectOne', () => {
  it('refuses the one process of another session than the command’s subject, naming it', async () => {
    expect(await selectOne(cluster, { uuids: ['u-1'] }, 'logs', 'run-8')).toEqual({
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
    expect(await selectOne(cluster, query, 'logs', 'run-7')).toEqual(outcome);
  });
});
