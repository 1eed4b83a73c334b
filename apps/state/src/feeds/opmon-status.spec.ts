import { instance } from '../domain/__fixtures__/facts';
import { bySession } from './feed-publisher';
import { opmonEntry, opmonKey, processStatus } from './opmon-status';

describe('opmon’s ProcessStatus', () => {
  it.each<[string, ('RUNNING' | 'DEAD')[], [number, number, number]]>([
    ['an empty session', [], [0, 0, 0]],
    ['two running, one dead', ['RUNNING', 'DEAD', 'RUNNING'], [2, 1, 1]],
    ['all dead', ['DEAD', 'DEAD'], [0, 2, 1]],
  ])('%s', (_, codes, [running, dead, sessions]) => {
    expect(processStatus(codes.map((statusCode) => ({ statusCode })))).toEqual({
      n_running: running,
      n_dead: dead,
      n_session: sessions,
    });
  });

  it('is wrapped as kafkaopmon wraps it, and keyed <session>.<application>/<measurement>', () => {
    const entry = opmonEntry(
      'run-42',
      'process_manager',
      { n_running: 2, n_dead: 1, n_session: 1 },
      Date.parse('2026-01-01T00:00:01.250Z'),
    );
    expect(entry).toEqual({
      time: { seconds: 1767225601, nanos: 250_000_000 },
      origin: { session: 'run-42', application: 'process_manager', substructure: [] },
      custom_origin: {},
      measurement: 'dunedaq.drunc.opmon.ProcessStatus',
      data: {
        n_running: { uint4_value: 2 },
        n_dead: { uint4_value: 1 },
        n_session: { uint4_value: 1 },
      },
    });
    expect(opmonKey(entry)).toBe('run-42.process_manager/dunedaq.drunc.opmon.ProcessStatus');
  });
});

describe('bySession', () => {
  it('groups the owned rows by their session, one ProcessStatus each', () => {
    const rows = [instance('ru-01', 1, 'a'), instance('ru-02', 1, 'b'), instance('ru-03', 1, 'a')];
    const sessions = bySession(rows);
    expect([...sessions.keys()]).toEqual(['a', 'b']);
    expect(processStatus(sessions.get('a')!)).toEqual({ n_running: 2, n_dead: 0, n_session: 1 });
  });
});
