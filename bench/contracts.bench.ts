import { EXAMPLE_EVENTS, CommandType, parseRecord } from '@kpm/contracts';
import type { BenchSuite } from './harness';

/** A boot command of `n` processes, as a client would write it. */
function bootRecord(n: number): Buffer {
  const example = EXAMPLE_EVENTS[CommandType.boot];
  const template = example.data.processes[0];
  const processes = Array.from({ length: n }, (_, i) => ({
    ...template,
    uuid: undefined,
    name: `app-${i}`,
  }));
  return Buffer.from(JSON.stringify({ ...example, data: { ...example.data, processes } }));
}

/** What validation costs on top of JSON.parse, for small and for the largest allowed boots. */
export const contractsBench: BenchSuite = {
  title: 'Parsing and validating boot commands (parseRecord vs JSON.parse)',
  cases: () =>
    [1, 100, 5000].flatMap((n) => {
      const record = bootRecord(n);
      return [
        {
          name: `JSON.parse, ${n} processes`,
          units: n,
          unit: 'process',
          run: () => JSON.parse(record.toString('utf8')) as unknown,
        },
        {
          name: `parseRecord, ${n} processes`,
          units: n,
          unit: 'process',
          run: () => parseRecord(record),
        },
      ];
    }),
  ratios: [1, 100, 5000].map((n) => [
    `validation overhead at ${n} processes (parseRecord / JSON.parse)`,
    `parseRecord, ${n} processes`,
    `JSON.parse, ${n} processes`,
  ]),
};
