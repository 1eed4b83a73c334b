import type { V1Pod } from '@kubernetes/client-node';
import { FinalizerReleaser } from './finalizer-releaser';

const pod = (uid: string): V1Pod => ({ metadata: { uid, name: uid, namespace: 'ns' } });

describe('FinalizerReleaser', () => {
  it('releases with at most `concurrency` calls in flight and reports each result', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const results: Array<[string, boolean]> = [];
    const releaser = new FinalizerReleaser(
      async (p) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        if (p.metadata?.uid === 'bad') throw new Error('conflict');
        return true;
      },
      3,
      { finished: (p, done) => results.push([p.metadata!.uid!, done]) },
    );
    const uids = ['a', 'b', 'c', 'd', 'bad', 'e', 'f'];
    uids.forEach((uid) => releaser.enqueue(pod(uid)));
    expect(releaser.pending).toBe(uids.length);
    await releaser.idle();
    expect(maxInFlight).toBe(3);
    expect(results).toHaveLength(uids.length);
    expect(results.filter(([, done]) => !done)).toEqual([['bad', false]]);
    expect(releaser.pending).toBe(0);
  });

  it('drops queued work on stop but waits for releases in flight', async () => {
    const started: string[] = [];
    const finished: string[] = [];
    let open: () => void = () => undefined;
    const releaser = new FinalizerReleaser(
      async (p) => {
        started.push(p.metadata!.uid!);
        await new Promise<void>((resolve) => (open = resolve));
      },
      1,
      { finished: (p) => finished.push(p.metadata!.uid!) },
    );
    releaser.enqueue(pod('a'));
    releaser.enqueue(pod('b'));
    const stopped = releaser.stop();
    open();
    await stopped;
    releaser.enqueue(pod('c'));
    expect(started).toEqual(['a']);
    expect(finished).toEqual(['a']);
  });

  it('is idle at once when nothing was queued', async () => {
    const releaser = new FinalizerReleaser(() => Promise.resolve(true), 2, {
      finished: () => undefined,
    });
    await expect(releaser.idle()).resolves.toBeUndefined();
  });
});
