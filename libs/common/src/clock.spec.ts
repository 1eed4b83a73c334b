import { VirtualClock } from './clock';

describe('VirtualClock', () => {
  it('moves time to each sleep in turn once the code has settled', async () => {
    const clock = new VirtualClock(0);
    const woke: Array<[string, number]> = [];
    const sleeper = async (name: string, ms: number) => {
      await clock.sleep(ms);
      woke.push([name, clock.now()]);
    };
    await Promise.all([sleeper('late', 30_000), sleeper('early', 5_000), sleeper('same', 5_000)]);
    expect(woke).toEqual([
      ['early', 5_000],
      ['same', 5_000],
      ['late', 30_000],
    ]);
  });

  it('fires scheduled events on the way, but does not move for them alone', async () => {
    const clock = new VirtualClock(0);
    const events: number[] = [];
    clock.schedule(1_000, () => events.push(clock.now()));
    clock.schedule(60_000, () => events.push(clock.now()));
    await clock.sleep(10_000);
    expect(events).toEqual([1_000]);
    await new Promise((resolve) => setImmediate(() => setImmediate(() => setImmediate(resolve))));
    expect(clock.now()).toBe(10_000);
  });

  it('lets a periodic tick ride along: a poll that runs for ever does not move time', async () => {
    const clock = new VirtualClock(0);
    const stop = new AbortController();
    const polls: number[] = [];
    void (async () => {
      while (!stop.signal.aborted) {
        polls.push(clock.now());
        await clock.tick(5_000, stop.signal);
      }
    })();
    await clock.sleep(12_000);
    expect(polls).toEqual([0, 5_000, 10_000]);
    await new Promise((resolve) => setImmediate(() => setImmediate(() => setImmediate(resolve))));
    expect(clock.now()).toBe(12_000);
    stop.abort();
  });

  it('wakes a sleep at once when its signal aborts, and cancels a scheduled event', async () => {
    const clock = new VirtualClock(0);
    const stop = new AbortController();
    const cancel = clock.schedule(5, () => {
      throw new Error('cancelled events never fire');
    });
    cancel();
    const sleeping = clock.sleep(60_000, stop.signal);
    stop.abort();
    await sleeping;
    expect(clock.now()).toBe(0);
  });

  it('lets a chain of sleeps run a long wait in one test step', async () => {
    const clock = new VirtualClock(0);
    for (let i = 0; i < 100; i++) await clock.sleep(1_000);
    expect(clock.since(0)).toBe(100_000);
  });
});
