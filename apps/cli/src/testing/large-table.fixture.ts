/**
 * Prints a process table of `argv[2]` rows through the CLI's own output and exit path, for the
 * spec that reads it through a pipe (exit-when-drained.spec.ts).
 */
import { exitWhenDrained, tolerateClosedReaders } from '../exit-when-drained';
import { printJson, printTable } from '../output';

tolerateClosedReaders();
const rowCount = Number(process.argv[2]);
const rows = Array.from({ length: rowCount }, (_, i) => ({
  uuid: `00000000-0000-4000-8000-${i.toString().padStart(12, '0')}`,
  name: `readout-application-${i}`,
  statusCode: i % 2 === 0 ? 'RUNNING' : 'DEAD',
  // Wide rows keep the table over 1 MiB with few rows.
  args: `--name readout-application-${i} ${'--queue-size 4096 '.repeat(30)}`,
}));
if (process.argv[3] === '--json') printJson(rows);
else printTable(rows, ['uuid', 'name', 'statusCode', 'args']);
void exitWhenDrained(0);
