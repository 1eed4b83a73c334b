import Table from 'cli-table3';
import pc from 'picocolors';
import { textTable } from './text-table';

/** What cli-table3, which the CLI used before, drew for the same cells: the layout is unchanged. */
function drawnByCliTable3(head: string[], rows: string[][], ruleBetweenRows: boolean): string {
  const table = new Table({
    head,
    style: { head: [], border: [] },
    chars: ruleBetweenRows
      ? undefined
      : { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  table.push(...rows);
  return table.toString();
}

const colours = pc.createColors(true);
const TABLES: Array<{ what: string; head: string[]; rows: string[][] }> = [
  { what: 'no rows', head: ['uuid', 'name'], rows: [] },
  {
    what: 'cells of different widths',
    head: ['name', 'status', 'exit'],
    rows: [
      ['ru-01', 'RUNNING', '0'],
      ['a-much-longer-process-name', 'DEAD', '143'],
    ],
  },
  {
    what: 'coloured cells and headings (escape codes take no width)',
    head: [colours.bold('name'), colours.bold('alive')],
    rows: [
      ['ru-01', colours.green('yes')],
      ['ru-02', colours.red('no')],
    ],
  },
  {
    what: 'multi-line cells and wide characters',
    head: ['a', 'b'],
    rows: [
      ['multi\nline\ncell', '-'],
      ['é漢字', '{"nested":[1,2]}'],
    ],
  },
];

describe('textTable', () => {
  it.each(
    TABLES.flatMap((t) => [true, false].map((ruleBetweenRows) => ({ ...t, ruleBetweenRows }))),
  )(
    'draws $what as cli-table3 did (rules between rows: $ruleBetweenRows)',
    ({ head, rows, ruleBetweenRows }) => {
      expect(textTable(head, rows, { ruleBetweenRows })).toBe(
        drawnByCliTable3(head, rows, ruleBetweenRows),
      );
    },
  );
});
