/** Concurrent publishes share requests, in order, and each caller learns its request's fate. */
import type { EncodedRecord } from '@kpm/contracts';
import { PublishBatcher, type TopicBatch } from './publish-batcher';

const record = (key: string, bytes = 10): EncodedRecord => ({
  key,
  value: Buffer.alloc(bytes, 'x'),
  headers: {},
});

/** A send that completes only when the test says so. */
function controlledSend() {
  const requests: TopicBatch[][] = [];
  const finish: Array<(error?: Error) => void> = [];
  const send = (batches: TopicBatch[]) =>
    new Promise<void>((resolve, reject) => {
      requests.push(batches);
      finish.push((error) => (error ? reject(error) : resolve()));
    });
  return { requests, finish, send };
}

const keys = (batches: TopicBatch[]) => batches.map((b) => [b.topic, b.records.map((r) => r.key)]);

describe('PublishBatcher', () => {
  it('sends at once when idle, and batches what arrives while a request is in flight', async () => {
    const { requests, finish, send } = controlledSend();
    const batcher = new PublishBatcher(send);
    const first = batcher.publish('commands', [record('a')]);
    await new Promise((r) => setImmediate(r));
    expect(keys(requests[0])).toEqual([['commands', ['a']]]);
    const rest = [
      batcher.publish('commands', [record('b')]),
      batcher.publish('other', [record('x')]),
      batcher.publish('commands', [record('c')]),
    ];
    expect(requests).toHaveLength(1); // one request in flight at a time
    finish[0]();
    await first;
    await new Promise((r) => setImmediate(r));
    expect(keys(requests[1])).toEqual([
      ['commands', ['b', 'c']],
      ['other', ['x']],
    ]);
    finish[1]();
    await Promise.all(rest);
  });

  it('fails every caller of a failed request, and only those', async () => {
    const { requests, finish, send } = controlledSend();
    const batcher = new PublishBatcher(send);
    const first = batcher.publish('commands', [record('a')]);
    await new Promise((r) => setImmediate(r));
    const second = batcher.publish('commands', [record('b')]);
    finish[0](new Error('not enough replicas'));
    await expect(first).rejects.toThrow('not enough replicas');
    await new Promise((r) => setImmediate(r));
    expect(keys(requests[1])).toEqual([['commands', ['b']]]);
    finish[1]();
    await expect(second).resolves.toBeUndefined();
  });

  it('splits batches at the byte limit, never below one publish', async () => {
    const { requests, finish, send } = controlledSend();
    const batcher = new PublishBatcher(send, 100);
    const all = [
      batcher.publish('t', [record('head', 10)]),
      batcher.publish('t', [record('big', 150)]),
      batcher.publish('t', [record('s1', 40)]),
      batcher.publish('t', [record('s2', 40)]),
      batcher.publish('t', [record('s3', 40)]),
    ];
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setImmediate(r));
      finish[i]?.();
    }
    await Promise.all(all);
    expect(requests.map((r) => r[0].records.map((x) => x.key))).toEqual([
      ['head'],
      ['big'],
      ['s1', 's2'],
      ['s3'],
    ]);
  });
});
