import { CommandType, type ProcessInstance } from '@kpm/contracts';
import { instance } from '../__fixtures__/facts';
import { cursorOf } from '../completion-record';
import { byName } from '../process-table';
import { psCompletion, type PsCommand } from './ps';

/** What the query selected, in the table's order. */
const selected = (...names: string[]): ProcessInstance[] =>
  names.map((name) => instance(name)).sort(byName);
/** The cursor a page ending at `name` hands the client. */
const after = (name: string) => cursorOf(instance(name));

type Page = Pick<PsCommand, 'limit' | 'cursor'>;
/** What the completion says: its status, the names it lists, whether more follow. */
type Expected = { status: string; processes: string[]; more: boolean };

describe('when a ps completes', () => {
  it.each<[string, ProcessInstance[], Page, Expected]>([
    [
      'nothing selected: succeeded, empty',
      [],
      {},
      { status: 'succeeded', processes: [], more: false },
    ],
    [
      'no page asked: everything selected, in order',
      selected('ru-03', 'ru-01', 'ru-02'),
      {},
      { status: 'succeeded', processes: ['ru-01', 'ru-02', 'ru-03'], more: false },
    ],
    [
      'a limit below what is selected: the first page, more follow',
      selected('ru-01', 'ru-02', 'ru-03'),
      { limit: 2 },
      { status: 'succeeded', processes: ['ru-01', 'ru-02'], more: true },
    ],
    [
      'a limit of exactly what is selected: no more',
      selected('ru-01', 'ru-02', 'ru-03'),
      { limit: 3 },
      { status: 'succeeded', processes: ['ru-01', 'ru-02', 'ru-03'], more: false },
    ],
    [
      'the cursor of the last page: the rest',
      selected('ru-01', 'ru-02', 'ru-03'),
      { limit: 2, cursor: after('ru-02') },
      { status: 'succeeded', processes: ['ru-03'], more: false },
    ],
    [
      'the cursor of a process gone since: the page after where it stood',
      selected('ru-01', 'ru-03', 'ru-04'),
      { limit: 1, cursor: after('ru-02') },
      { status: 'succeeded', processes: ['ru-03'], more: true },
    ],
    [
      'a cursor past the last process: succeeded, empty',
      selected('ru-01', 'ru-02'),
      { cursor: after('ru-09') },
      { status: 'succeeded', processes: [], more: false },
    ],
  ])('%s', (_, sorted, page, expected) => {
    const report = psCompletion({ commandId: 'ps-1', session: 'run-42', time: 7, ...page }, sorted);
    expect({
      status: report.status,
      processes: report.processes.map((p) => p.description.metadata.name),
      more: report.paging?.more,
    }).toEqual(expected);
    expect(report).toMatchObject({
      commandId: 'ps-1',
      commandType: CommandType.ps,
      session: 'run-42',
      acceptedAt: 7,
    });
    expect(report.errors).toBeUndefined();
  });
});
