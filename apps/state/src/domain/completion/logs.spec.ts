import { CommandType, type LogsFetched, type ProcessTerminated } from '@kpm/contracts';
import { instance, SESSION, terminated, uuidOf } from '../__fixtures__/facts';
import { ProcessTable } from '../process-table';
import { logsCompletion } from './logs';

/** ru-01 RUNNING, ru-02 DEAD (exit 0); ru-03 not in the table (flushed, or never seen here). */
function table(): ProcessTable {
  const t = new ProcessTable();
  t.booted(instance('ru-01'));
  t.booted(instance('ru-02'));
  t.terminated(terminated('ru-02', 0).data as ProcessTerminated);
  return t;
}

/** What the completion says: its status, `name:STATUS` per process, the lines per uuid. */
type Expected = { status: string; processes: string[]; logs: Array<[string, string[]]> };

describe('when a logs command completes, on its logs.fetched', () => {
  it.each<[string, string, string[], Expected]>([
    [
      'of a running process: succeeded, its lines and its row',
      'ru-01',
      ['line 1', 'line 2'],
      {
        status: 'succeeded',
        processes: ['ru-01:RUNNING'],
        logs: [[uuidOf('ru-01'), ['line 1', 'line 2']]],
      },
    ],
    [
      'of a process that ended: its row as the table knows it, DEAD',
      'ru-02',
      ['last words'],
      { status: 'succeeded', processes: ['ru-02:DEAD'], logs: [[uuidOf('ru-02'), ['last words']]] },
    ],
    [
      'with no lines: succeeded, empty lines',
      'ru-01',
      [],
      { status: 'succeeded', processes: ['ru-01:RUNNING'], logs: [[uuidOf('ru-01'), []]] },
    ],
    [
      'of a process the table does not know: succeeded, the lines, no process',
      'ru-03',
      ['line 1'],
      { status: 'succeeded', processes: [], logs: [[uuidOf('ru-03'), ['line 1']]] },
    ],
  ])('%s', (_, name, lines, expected) => {
    const t = table();
    const fetched: LogsFetched = { commandId: 'logs-1', uuid: uuidOf(name), lines };
    const report = logsCompletion(fetched, t.get(uuidOf(name)), SESSION, 7);
    expect({
      status: report.status,
      processes: report.processes.map((p) => `${p.description.metadata.name}:${p.statusCode}`),
      logs: (report.logs ?? []).map((l) => [l.uuid, l.lines]),
    }).toEqual(expected);
    expect(report).toMatchObject({
      commandId: 'logs-1',
      commandType: CommandType.logs,
      session: SESSION,
      acceptedAt: 7,
    });
    expect(report.errors).toBeUndefined();
  });
});
