import Table from 'cli-table3';
import pc from 'picocolors';

/** Human output is a table (coloured on a TTY); `--json` prints the data for scripts. */
export function printTable(
  rows: ReadonlyArray<Record<string, unknown>>,
  columns: readonly string[],
): void {
  const colour = process.stdout.isTTY === true;
  const table = new Table({
    head: columns.map((column) => (colour ? pc.bold(column) : column)),
    style: { head: [], border: [] },
    chars: colour ? undefined : { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const row of rows) table.push(columns.map((column) => formatCell(row[column], colour)));
  console.log(table.toString());
}

export function printJson(data: unknown): void {
  console.log(JSON.stringify(data, null, 2));
}

function formatCell(value: unknown, colour: boolean): string {
  if (value === true) return colour ? pc.green('yes') : 'yes';
  if (value === false) return colour ? pc.red('no') : 'no';
  if (value === undefined || value === null) return '-';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${value}`;
  }
  return JSON.stringify(value) ?? '-';
}
