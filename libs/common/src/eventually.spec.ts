import { eventually } from './eventually';

describe('eventually', () => {
  it('resolves with the first value that holds', async () => {
    let calls = 0;
    expect(await eventually(() => (++calls >= 3 ? `after ${calls}` : false), { everyMs: 1 })).toBe(
      'after 3',
    );
  });

  it('waits out failing assertions, then resolves', async () => {
    let calls = 0;
    await eventually(
      () => {
        calls++;
        expect(calls).toBe(4);
      },
      { everyMs: 1 },
    );
    expect(calls).toBe(4);
  });

  it.each<[string, () => unknown, RegExp]>([
    ['a condition that never holds', () => false, /^pods gone not reached within 20 ms$/],
    [
      'an assertion that keeps failing, with its message',
      () => expect(1).toBe(2),
      /^pods gone not reached within 20 ms: expect\(received\)\.toBe\(expected\)/,
    ],
  ])('fails after its timeout for %s', async (_, check, message) => {
    await expect(
      eventually(check, { what: 'pods gone', timeoutMs: 20, everyMs: 1 }),
    ).rejects.toThrow(message);
  });

  it('fails at once with what failFast says', async () => {
    let calls = 0;
    const waiting = eventually(() => ++calls > 100, {
      everyMs: 1,
      failFast: () => (calls >= 2 ? new Error('the service exited with 1') : undefined),
    });
    await expect(waiting).rejects.toThrow('the service exited with 1');
    expect(calls).toBe(2);
  });
});
