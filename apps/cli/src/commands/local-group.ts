/** What `kpm stack` and `kpm services` share: a `down` that says so, a `status` as table or JSON. */
import type { Command } from 'commander';
import { printJson, printTable } from '../output';

export function addDownCommand(
  group: Command,
  description: string,
  down: () => Promise<void>,
): void {
  group
    .command('down')
    .description(description)
    .action(async () => {
      await down();
      console.error(`kpm ${group.name()}: down`);
    });
}

export function addStatusCommand(
  group: Command,
  help: { description: string; json: string; columns: readonly string[] },
  status: () => Promise<readonly object[]>,
): void {
  group
    .command('status')
    .description(help.description)
    .option('--json', help.json)
    .action(async (options: { json?: boolean }) =>
      printRows(await status(), help.columns, options.json),
    );
}

/** Rows as a table with these columns, or all of them as JSON. */
export function printRows(
  rows: readonly object[],
  columns: readonly string[],
  json?: boolean,
): void {
  if (json) printJson(rows);
  else printTable(rows as ReadonlyArray<Record<string, unknown>>, columns);
}
