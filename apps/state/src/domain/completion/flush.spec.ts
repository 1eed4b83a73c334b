import { CommandType, type ProcessQuery, type ProcessTerminated } from '@kpm/contracts';
import { instance, SESSION, terminated, uuidOf } from '../__fixtures__/facts';
import { ProcessTable } from '../process-table';
import { flushCompletion, flushQuery, flushRefusal, type FlushCommand } from './flush';

/** ru-01 RUNNING, ru-02 and ru-03 DEAD in run-42 (owned by daq); ru-09 DEAD in run-43. */
function table(): ProcessTable {
  const t = new ProcessTable();
  for (const name of ['ru-01', 'ru-02', 'ru-03']) t.booted(instance(name));
  t.booted(instance('ru-09', 1, 'run-43'));
  for (const name of ['ru-02', 'ru-03'])
    t.terminated(terminated(name, 0).data as ProcessTerminated);
  t.terminated(terminated('ru-09', 0, 1, 'run-43').data as ProcessTerminated);
  return t;
}

type Flush = { query: ProcessQuery; user: string; operators: string[] };
/** What the completion says (its status, the names it forgot, its errors) and who is left. */
type Expected = { status: string; forgot: string[]; errors: string[]; left: string[] };

const owned = `session "${SESSION}" belongs to user "daq", not "eve"`;

describe('when a flush of run-42 completes', () => {
  it.each<[string, Flush, Expected]>([
    [
      'by the owner, of everything: the DEAD processes of its session go, RUNNING ones stay',
      { query: {}, user: 'daq', operators: [] },
      { status: 'succeeded', forgot: ['ru-02', 'ru-03'], errors: [], left: ['ru-01', 'ru-09'] },
    ],
    [
      'by name: only the DEAD processes it selects',
      { query: { names: ['^ru-0[12]$'] }, user: 'daq', operators: [] },
      { status: 'succeeded', forgot: ['ru-02'], errors: [], left: ['ru-01', 'ru-03', 'ru-09'] },
    ],
    [
      'selecting only RUNNING processes: succeeded, nothing forgotten',
      { query: { names: ['^ru-01$'] }, user: 'daq', operators: [] },
      {
        status: 'succeeded',
        forgot: [],
        errors: [],
        left: ['ru-01', 'ru-02', 'ru-03', 'ru-09'],
      },
    ],
    [
      'a query naming another session: still its own session only',
      { query: { session: 'run-43' }, user: 'daq', operators: [] },
      { status: 'succeeded', forgot: ['ru-02', 'ru-03'], errors: [], left: ['ru-01', 'ru-09'] },
    ],
    [
      'by another user: rejected, naming the owner, nothing forgotten',
      { query: {}, user: 'eve', operators: [] },
      {
        status: 'rejected',
        forgot: [],
        errors: [`query: ${owned}`],
        left: ['ru-01', 'ru-02', 'ru-03', 'ru-09'],
      },
    ],
    [
      'by another user, of a RUNNING process only: still rejected',
      { query: { names: ['^ru-01$'] }, user: 'eve', operators: [] },
      {
        status: 'rejected',
        forgot: [],
        errors: [`query: ${owned}`],
        left: ['ru-01', 'ru-02', 'ru-03', 'ru-09'],
      },
    ],
    [
      'by another user selecting nothing: succeeded, nothing forgotten',
      { query: { names: ['^nobody$'] }, user: 'eve', operators: [] },
      {
        status: 'succeeded',
        forgot: [],
        errors: [],
        left: ['ru-01', 'ru-02', 'ru-03', 'ru-09'],
      },
    ],
    [
      'by an operator: succeeded',
      { query: {}, user: 'shifter', operators: ['shifter'] },
      { status: 'succeeded', forgot: ['ru-02', 'ru-03'], errors: [], left: ['ru-01', 'ru-09'] },
    ],
    [
      'by a user another deployment calls operator: rejected',
      { query: {}, user: 'eve', operators: ['shifter'] },
      {
        status: 'rejected',
        forgot: [],
        errors: [`query: ${owned}`],
        left: ['ru-01', 'ru-02', 'ru-03', 'ru-09'],
      },
    ],
  ])('%s', (_, { query, user, operators }, expected) => {
    const t = table();
    const flush: FlushCommand = { commandId: 'flush-1', session: SESSION, query, user, time: 7 };
    // As the shard does: refused, or its DEAD processes forgotten (the book also forgets their pods).
    const report =
      flushRefusal(flush, t, operators) ?? flushCompletion(flush, t.flush(flushQuery(flush)));
    expect({
      status: report.status,
      forgot: report.processes.map((p) => p.description.metadata.name),
      errors: (report.errors ?? []).map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)),
      left: t
        .all()
        .map((p) => p.description.metadata.name)
        .sort(),
    }).toEqual(expected);
    expect(report).toMatchObject({
      commandId: 'flush-1',
      commandType: CommandType.flush,
      session: SESSION,
      acceptedAt: 7,
    });
    if (report.status === 'succeeded') {
      expect(report.processes.every((p) => p.statusCode === 'DEAD')).toBe(true);
      expect(report.processes.map((p) => p.uuid)).not.toContain(uuidOf('ru-09'));
    }
  });
});
