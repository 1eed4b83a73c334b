import type { EncodedRecord } from '@kpm/contracts';
import { FactBatcher, type FactSink } from './fact-sink';

const record = (n: number): EncodedRecord => ({
  key: 's',
  value: Buffer.from(String(n)),
  headers: {},
});
const values = (batches: EncodedRecord[][]) => batches.map((b) => b.map((r) => r.value.toString()));

describe('FactBatcher', () => {
  it('sends full batches at once, the rest on close, in order', async () => {
    const batches: EncodedRecord[][] = [];
    const sink: FactSink = { send: (records) => (batches.push([...records]), Promise.resolve()) };
    const batcher = new FactBatcher(sink, { lingerMs: 60_000, maxBatch: 2 });
    [1, 2, 3, 4, 5].forEach((n) => batcher.add(record(n)));
    await batcher.close();
    expect(values(batches)).toEqual([['1', '2'], ['3', '4'], ['5']]);
  });

  it('sends what lingers without waiting for a full batch', async () => {
    let flushed!: () => void;
    const sent = new Promise<void>((resolve) => (flushed = resolve));
    const sink: FactSink = { send: () => Promise.resolve() };
    const batcher = new FactBatcher(sink, {
      lingerMs: 10,
      maxBatch: 100,
      onFlush: () => flushed(),
    });
    batcher.add(record(1));
    await sent;
    await batcher.close();
  });

  it('reports a failed send on close, so the command is redelivered', async () => {
    const sink: FactSink = { send: () => Promise.reject(new Error('broker gone')) };
    const batcher = new FactBatcher(sink, { lingerMs: 60_000, maxBatch: 1 });
    batcher.add(record(1));
    batcher.add(record(2));
    await expect(batcher.close()).rejects.toThrow('broker gone');
  });
});
