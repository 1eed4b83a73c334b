import { BuildSlots } from './build-slots';

/** A task the test ends when it wants. */
function gate(): { task: () => Promise<void>; open: () => void; started: () => boolean } {
  let open: () => void = () => undefined;
  let started = false;
  const done = new Promise<void>((resolve) => (open = resolve));
  return {
    task: () => {
      started = true;
      return done;
    },
    open: () => open(),
    started: () => started,
  };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
}

describe('BuildSlots', () => {
  it('runs at most size tasks; the others start in the order they asked as slots free up', async () => {
    const slots = new BuildSlots(2);
    const [a, b, c, d] = [gate(), gate(), gate(), gate()];
    const queued: string[] = [];
    const runs = [a, b, c, d].map((g, i) => slots.run(g.task, () => queued.push(`t${i}`)));
    await settle();
    expect([a, b, c, d].map((g) => g.started())).toEqual([true, true, false, false]);
    expect(queued).toEqual(['t2', 't3']);

    b.open();
    await settle();
    expect([c.started(), d.started()]).toEqual([true, false]);

    a.open();
    c.open();
    d.open();
    await Promise.all(runs);
    expect(d.started()).toBe(true);
  });

  it('frees the slot of a task that fails, and passes its error on', async () => {
    const slots = new BuildSlots(1);
    const failing = slots.run(() => Promise.reject(new Error('exit 1')));
    const next = slots.run(() => Promise.resolve('built'));
    await expect(failing).rejects.toThrow('exit 1');
    await expect(next).resolves.toBe('built');
  });
});
