import type { V1Pod } from '@kubernetes/client-node';
import { StopRequested } from '../commands/command-context';
import { waitPreviousPodGone } from './previous-pod';

const pod: V1Pod = { metadata: { namespace: 'run-7', name: 'ru-01', uid: 'uid-1' } };

describe('waitPreviousPodGone', () => {
  it.each<[string, string[], unknown]>([
    ['gone within the timeout', [], undefined],
    [
      'still there after it',
      ['uid-1'],
      {
        ok: false,
        code: 'PreviousPodNotGone',
        message:
          'the ended pod run-7/ru-01 of the earlier process is still there after 30 s (its termination is not recorded yet: is the watcher running?)',
      },
    ],
  ])('%s', async (_, pending, outcome) => {
    const waited: Array<[number, number]> = [];
    const cluster = {
      waitFor: (pods: readonly V1Pod[], _done: unknown, timeoutMs: number) => {
        waited.push([pods.length, timeoutMs]);
        return Promise.resolve({ pending, last: new Map() });
      },
    };
    expect(await waitPreviousPodGone(cluster, pod, 30)).toEqual(outcome);
    expect(waited).toEqual([[1, 30_000]]);
  });

  it('stops when the boot-worker stops while waiting', async () => {
    const abort = new AbortController();
    const cluster = {
      waitFor: () => {
        abort.abort();
        return Promise.resolve({ pending: ['uid-1'], last: new Map() });
      },
    };
    await expect(waitPreviousPodGone(cluster, pod, 30, abort.signal)).rejects.toBeInstanceOf(
      StopRequested,
    );
  });
});
