import { secondsLeft } from './go-build';

describe('secondsLeft', () => {
  it.each([
    // done, total, elapsed ms, expected
    [100, 2000, 50_000, undefined], // under a tenth compiled: too early to say
    [200, 2000, 50_000, 450], // 200 in 50 s, 4 a second: 1,800 left take 450 s
    [1000, 2000, 200_000, 200],
    [2000, 2000, 400_000, 0],
    [2100, 2000, 400_000, 0], // more than counted (a list that missed some): nothing left, not less
    [500, undefined, 50_000, undefined], // no count (`go install`): no estimate
  ])('%i of %s packages after %i ms: %s s left', (done, total, elapsedMs, expected) => {
    expect(secondsLeft(done, total, elapsedMs)).toBe(expected);
  });
});
