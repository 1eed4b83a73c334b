import { EventLoopSlices } from './event-loop-slices';

describe('EventLoopSlices', () => {
  afterEach(() => jest.useRealTimers());

  it.each([
    { case: 'within the slice', elapsedMs: [5, 10, 19], turns: [false, false, false] },
    { case: 'at its end', elapsedMs: [5, 20, 25], turns: [false, true, false] },
    { case: 'every unit longer than a slice', elapsedMs: [25, 50, 75], turns: [true, true, true] },
  ])(
    'gives the event loop a turn only when a 20 ms slice is used up ($case)',
    async ({ elapsedMs, turns }) => {
      jest.useFakeTimers({ doNotFake: ['setImmediate'], now: 0 });
      const slices = new EventLoopSlices(20);
      const seen: boolean[] = [];
      for (const at of elapsedMs) {
        jest.setSystemTime(at);
        seen.push(await slices.next());
      }
      expect(seen).toEqual(turns);
    },
  );

  it('lets what waits on the event loop run during a turn', async () => {
    const slices = new EventLoopSlices(0);
    let ran = false;
    setImmediate(() => (ran = true));
    expect(await slices.next()).toBe(true);
    expect(ran).toBe(true);
  });
});
