import type { Termination } from './termination';
import { TerminationPublisher } from './termination-publisher';
import { eventually } from '@kpm/common';

const termination = (podUid: string): Termination => ({
  identity: {
    podUid,
    namespace: 'ns',
    podName: podUid,
    uuid: podUid,
    session: 's',
    name: podUid,
    user: 'u',
  },
  verdict: { terminal: true, exitCode: 0, reason: 'Completed', phase: 'Succeeded' },
  detectedBy: 'watch',
  observedAt: '2026-11-22T10:00:00.000Z',
});

const uids = (batch: readonly Termination[]) => batch.map((t) => t.identity.podUid);

describe('TerminationPublisher', () => {
  it('sends what arrives together as one batch and reports it after the ack', async () => {
    const sent: string[][] = [];
    const published: string[][] = [];
    const publisher = new TerminationPublisher(
      (batch) => {
        sent.push(uids(batch));
        return Promise.resolve();
      },
      { batchSize: 100, backoff: { initialMs: 1, maxMs: 1 } },
      { published: (batch) => published.push(uids(batch)) },
    );
    ['a', 'b', 'c'].forEach((uid) => publisher.enqueue(termination(uid)));
    await eventually(() => published.length === 1, { everyMs: 1 });
    expect(sent).toEqual([['a', 'b', 'c']]);
    expect(published).toEqual([['a', 'b', 'c']]);
  });

  it('splits a burst into batches of batchSize, in order, one request at a time', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const sent: string[][] = [];
    let release: () => void = () => undefined;
    const publisher = new TerminationPublisher(
      async (batch) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        sent.push(uids(batch));
        await new Promise<void>((resolve) => (release = resolve));
        inFlight--;
      },
      { batchSize: 2, backoff: { initialMs: 1, maxMs: 1 } },
      { published: () => undefined },
    );
    ['a', 'b', 'c', 'd', 'e'].forEach((uid) => publisher.enqueue(termination(uid)));
    for (let n = 1; n <= 3; n++) {
      await eventually(() => sent.length === n, { everyMs: 1 });
      release();
    }
    await eventually(() => publisher.backlog === 0 && inFlight === 0, { everyMs: 1 });
    expect(sent).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(maxInFlight).toBe(1);
  });

  it('retries a failed batch until the broker acknowledges it', async () => {
    let calls = 0;
    const failures: number[] = [];
    const published: string[][] = [];
    const publisher = new TerminationPublisher(
      () => (++calls < 3 ? Promise.reject(new Error('broker down')) : Promise.resolve()),
      { batchSize: 10, backoff: { initialMs: 1, maxMs: 2 } },
      {
        published: (batch) => published.push(uids(batch)),
        failed: (_error, attempt) => failures.push(attempt),
      },
    );
    publisher.enqueue(termination('a'));
    await eventually(() => published.length === 1, { timeoutMs: 100_000, everyMs: 1 });
    expect(failures).toEqual([1, 2]);
    expect(published).toEqual([['a']]);
  });

  it('stops retrying on stop and never reports the unacknowledged batch', async () => {
    const published: string[][] = [];
    let attempts = 0;
    const publisher = new TerminationPublisher(
      () => {
        attempts++;
        return Promise.reject(new Error('broker down'));
      },
      { batchSize: 10, backoff: { initialMs: 60_000, maxMs: 60_000 } },
      { published: (batch) => published.push(uids(batch)) },
    );
    publisher.enqueue(termination('a'));
    await eventually(() => attempts === 1, { everyMs: 1 });
    await publisher.stop();
    publisher.enqueue(termination('b'));
    expect(published).toEqual([]);
    expect(publisher.backlog).toBe(0);
  });
});
