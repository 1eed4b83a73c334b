import { Batcher } from './batcher';

/** A receiver the test acknowledges by hand, so what piles up meanwhile is visible. */
function receiver() {
  const batches: number[][] = [];
  const pending: Array<{ ack: () => void; fail: (e: Error) => void }> = [];
  const send = (batch: number[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push(batch);
      pending.push({ ack: resolve, fail: reject });
    });
  const next = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
  return { batches, pending, send, next };
}

describe('Batcher', () => {
  it('sends at once when idle; what comes while a batch is in flight goes in the next', async () => {
    const r = receiver();
    const batcher = new Batcher<number>({ send: r.send });
    batcher.add(1);
    await r.next();
    [2, 3, 4].forEach((n) => batcher.add(n));
    await r.next();
    expect(r.batches).toEqual([[1]]);
    r.pending[0].ack();
    await r.next();
    expect(r.batches).toEqual([[1], [2, 3, 4]]);
    r.pending[1].ack();
    await batcher.flushed();
  });

  it.each<[string, { maxItems?: number; maxBytes?: number }, number[][]]>([
    ['at most maxItems a batch', { maxItems: 2 }, [[1, 2], [3, 4], [5]]],
    [
      'at most maxBytes a batch (one byte per unit), a larger item alone',
      { maxBytes: 4 },
      [[1, 2], [3], [4], [5]],
    ],
  ])('%s, in order', async (_, bounds, expected) => {
    const batches: number[][] = [];
    const batcher = new Batcher<number>({
      send: (batch) => Promise.resolve(void batches.push(batch)),
      bytesOf: (n) => n,
      ...bounds,
    });
    [1, 2, 3, 4, 5].forEach((n) => batcher.add(n));
    await batcher.flushed();
    expect(batches).toEqual(expected);
  });

  it('rejects the items of a failed batch, goes on with the next, and reports the failure when flushed', async () => {
    let calls = 0;
    const sent: number[][] = [];
    const batcher = new Batcher<number>({
      maxItems: 1,
      send: (batch) =>
        ++calls === 1
          ? Promise.reject(new Error('broker gone'))
          : Promise.resolve(void sent.push(batch)),
    });
    const first = batcher.send(1);
    const second = batcher.send(2);
    await expect(first).rejects.toThrow('broker gone');
    await expect(second).resolves.toBeUndefined();
    expect(sent).toEqual([[2]]);
    await expect(batcher.flushed()).rejects.toThrow('broker gone');
  });

  it('tells of each acknowledged batch', async () => {
    const told: number[][] = [];
    const batcher = new Batcher<number>({
      send: () => Promise.resolve(),
      onSent: (b) => void told.push(b),
    });
    batcher.add(7);
    await batcher.flushed();
    expect(told).toEqual([[7]]);
  });

  it('drops what waits when stopped, after the batch in flight', async () => {
    const r = receiver();
    const batcher = new Batcher<number>({ send: r.send });
    const first = batcher.send(1);
    await r.next();
    const dropped = batcher.send(2);
    const stopping = batcher.stop();
    await expect(dropped).rejects.toThrow('stopped');
    r.pending[0].ack();
    await stopping;
    await first;
    expect(r.batches).toEqual([[1]]);
    await expect(batcher.send(3)).rejects.toThrow('stopped');
  });
});
