import { CatchUp } from './catch-up';

describe('CatchUp', () => {
  it.each([
    { rule: 'a batch short of the end leaves the partition pending', last: '8', finished: false },
    {
      rule: 'the batch holding the last record before the end finishes it',
      last: '9',
      finished: true,
    },
    {
      rule: 'a position past the end (transaction markers) finishes it',
      last: '12',
      finished: true,
    },
  ])('$rule', ({ last, finished }) => {
    const catchUp = new CatchUp([[CatchUp.key('kpm.processes', 0), 10n]]);
    expect(catchUp.advance('kpm.processes', 0, last)).toBe(finished);
    expect(catchUp.done).toBe(finished);
  });

  it('ignores partitions it does not wait for, and counts what is left', () => {
    const catchUp = new CatchUp([
      ['kpm.processes/0', 5n],
      ['kpm.completions/1', 3n],
    ]);
    expect(catchUp.advance('kpm.processes', 1, '100')).toBe(false);
    expect(catchUp.advance('kpm.processes', 0, '4')).toBe(true);
    expect(catchUp.advance('kpm.processes', 0, '4')).toBe(false);
    expect(catchUp.remaining).toBe(1);
    expect(catchUp.left()).toBe('kpm.completions/1@3');
  });
});
