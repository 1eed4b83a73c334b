import { ApiException } from '@kubernetes/client-node';
import { KubeCallFailed } from './kube-errors';
import { withKubeRetry } from './kube-retry';

const apiError = (code: number, reason: string) =>
  new ApiException(
    code,
    'failed',
    JSON.stringify({ kind: 'Status', reason, message: `${reason} happened` }),
    {},
  );

describe('withKubeRetry', () => {
  it('retries retryable failures and returns the eventual result', async () => {
    let calls = 0;
    const result = await withKubeRetry(
      () =>
        ++calls < 3 ? Promise.reject(apiError(503, 'ServiceUnavailable')) : Promise.resolve('ok'),
      { backoff: { initialMs: 1, maxMs: 2 } },
    );
    expect(result).toBe('ok');
    expect(calls).toBe(3);
  });

  it('fails at once on a non-retryable failure, naming the reason', async () => {
    let calls = 0;
    const failing = withKubeRetry(() => {
      calls++;
      return Promise.reject(apiError(422, 'Invalid'));
    });
    await expect(failing).rejects.toBeInstanceOf(KubeCallFailed);
    await expect(failing).rejects.toThrow('Invalid: Invalid happened');
    expect(calls).toBe(1);
  });

  it('gives up at the deadline', async () => {
    const failing = withKubeRetry(() => Promise.reject(apiError(500, 'InternalError')), {
      deadlineMs: 50,
      backoff: { initialMs: 20, maxMs: 20 },
    });
    await expect(failing).rejects.toThrow(/after \d+ attempts/);
  });
});
