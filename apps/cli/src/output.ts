import pc from 'picocolors';
import { textTable } from './render/text-table';

/** Colours for one stream: on when it is a terminal (and NO_COLOR is unset), plain otherwise. */
export type Colours = ReturnType<typeof pc.createColors>;

export function coloursFor(stream: { isTTY?: boolean }): Colours {
  const wanted = stream.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
  return pc.createColors(wanted || Boolean(process.env.FORCE_COLOR));
}

/** A table as text: box-drawn with bold headings in colour, bare columns otherwise. */
export function renderTable(
  rows: ReadonlyArray<Record<string, unknown>>,
  columns: readonly string[],
  colours: Colours,
): string {
  const head = columns.map((column) => (colours.isColorSupported ? colours.bold(column) : column));
  const cells = rows.map((row) => columns.map((column) => formatCell(row[column], colours)));
  return textTable(head, cells, { ruleBetweenRows: colours.isColorSupported });
}

/** Human output is a table (coloured on a TTY); `--json` prints the data for scripts. */
export function printTable(
  rows: ReadonlyArray<Record<string, unknown>>,
  columns: readonly string[],
): void {
  console.log(renderTable(rows, columns, coloursFor(process.stdout)));
}

export function printJson(data: unknown): void {
  console.log(JSON.stringify(data, null, 2));
}

function formatCell(value: unknown, colours: Colours): string {
  if (value === true) return colours.green('yes');
  if (value === false) return colours.red('no');
  if (value === undefined || value === null) return '-';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return value.toString();
  return JSON.stringify(value);
}
