import stringWidth from 'string-width';

/**
 * A table as box-drawn text, laid out in one pass: each column as wide as its widest line, one
 * space of padding, multi-line cells spread over lines. It draws what `cli-table3` drew for kpm
 * (text-table.spec.ts compares the two), in time linear in the cells: cli-table3's span-aware
 * layout managed about 2,500 cells a second, which made a 5000-process `ps` wait seconds.
 */
interface TableStyle {
  /** A rule between the heading and each row (on a terminal); none on a pipe. */
  ruleBetweenRows: boolean;
}

export function textTable(
  head: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  style: TableStyle,
): string {
  const lines = [head, ...rows].map((row) => row.map((cell) => cell.split('\n')));
  // A loop, not Math.max(...): a spread of 100,000 rows would overflow the call stack.
  const widths = head.map((_, c) =>
    lines.reduce(
      (widest, row) => row[c].reduce((w, line) => Math.max(w, stringWidth(line)), widest),
      0,
    ),
  );
  const rule = (left: string, middle: string, right: string) =>
    `${left}${widths.map((w) => '─'.repeat(w + 2)).join(middle)}${right}`;
  const out = [rule('┌', '┬', '┐')];
  lines.forEach((row, r) => {
    if (r > 0 && style.ruleBetweenRows) out.push(rule('├', '┼', '┤'));
    out.push(...rowLines(row, widths));
  });
  out.push(rule('└', '┴', '┘'));
  return out.join('\n');
}

function rowLines(row: readonly string[][], widths: readonly number[]): string[] {
  const height = Math.max(...row.map((cell) => cell.length));
  return Array.from({ length: height }, (_, i) => {
    const cells = row.map((cell, c) => {
      const text = cell[i] ?? '';
      return ` ${text}${' '.repeat(widths[c] - stringWidth(text))} `;
    });
    return `│${cells.join('│')}│`;
  });
}
