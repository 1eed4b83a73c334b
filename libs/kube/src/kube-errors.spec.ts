import { ApiException } from '@kubernetes/client-node';
import { classifyKubeError } from './kube-errors';
import { KubeCallFailed, withKubeRetry } from './kube-retry';
import { KpmLabels } from './kpm-labels';

const apiError = (code: number, reason: string) =>
  new ApiException(
    code,
    'failed',
    JSON.stringify({ kind: 'Status', reason, message: `${reason} happened` }),
    {},
  );

describe('classifyKubeError', () => {
  it.each([
    [404, 'not-found'],
    [409, 'conflict'],
    [410, 'gone'],
    [422, 'invalid'],
    [403, 'forbidden'],
    [429, 'retryable'],
    [503, 'retryable'],
  ])('maps HTTP %i to %s', (code, kind) => {
    expect(classifyKubeError(apiError(code, 'Some')).kind).toBe(kind);
  });

  it('keeps the API server reason and message', () => {
    expect(classifyKubeError(apiError(422, 'Invalid'))).toMatchObject({
      reason: 'Invalid',
      message: 'Invalid happened',
    });
  });

  it('treats a call aborted by its request timeout as retryable', () => {
    const aborted = Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' });
    expect(classifyKubeError(aborted)).toMatchObject({ kind: 'retryable', reason: 'Timeout' });
  });

  it('treats refused connections as retryable', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(classifyKubeError(refused).kind).toBe('retryable');
  });
});

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

describe('KpmLabels', () => {
  const labels = new KpmLabels('drunc.daq');

  it('builds creator-scoped selectors', () => {
    expect(labels.sessionSelector('run-1')).toBe('creator.drunc.daq=kpm,session.drunc.daq=run-1');
    expect(labels.terminationFinalizer).toBe('drunc.daq/termination-record');
  });

  it('recognises only kpm-created objects', () => {
    expect(labels.isOurs({ 'creator.drunc.daq': 'kpm' })).toBe(true);
    expect(labels.isOurs({ 'creator.drunc.daq': 'someone' })).toBe(false);
    expect(labels.isOurs(undefined)).toBe(false);
  });
});
