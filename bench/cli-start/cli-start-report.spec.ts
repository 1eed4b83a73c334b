import { cliStartRows, medianAndRange } from './cli-start-report';

describe('bench:cli report', () => {
  it('gives the median (the lower middle of an even count) and the range', () => {
    expect(medianAndRange([30, 10, 20])).toBe('20 (10–30)');
    expect(medianAndRange([40, 10, 30, 20])).toBe('20 (10–40)');
  });

  it('makes one row per variant and command, in the order first seen', () => {
    const sample = (variant: string, command: string, ms: number) => ({
      variant,
      command,
      startToCommandMs: ms,
      completionToExitMs: ms / 10,
      beyondCompletionMs: ms + 100,
    });
    const rows = cliStartRows([
      sample('a', 'boot', 400),
      sample('a', 'terminate', 300),
      sample('b', 'boot', 200),
      sample('a', 'boot', 500),
    ]);
    expect(rows).toEqual([
      ['a', 'boot', '400 (400–500)', '40 (40–50)', '500 (500–600)'],
      ['a', 'terminate', '300 (300–300)', '30 (30–30)', '400 (400–400)'],
      ['b', 'boot', '200 (200–200)', '20 (20–20)', '300 (300–300)'],
    ]);
  });
});
