import { ApiException } from '@kubernetes/client-node';
import { createOrExisting, deleteIfSame } from './guarded-calls';

const apiError = (code: number) => new ApiException(code, 'failed', '{"reason":"R"}', {});
const noRetry = { backoff: { initialMs: 1, maxMs: 1 }, deadlineMs: 0 };

describe('createOrExisting', () => {
  it.each<[string, () => Promise<string>, string | undefined, string | number]>([
    ['created', () => Promise.resolve('new'), 'old', 'new'],
    ['name taken: the existing one', () => Promise.reject(apiError(409)), 'old', 'old'],
    [
      'name taken, nothing to read: the conflict',
      () => Promise.reject(apiError(409)),
      undefined,
      409,
    ],
    ['another failure: thrown', () => Promise.reject(apiError(422)), 'old', 422],
  ])('%s', async (_, create, existing, expected) => {
    const result = createOrExisting(create, () => Promise.resolve(existing), noRetry);
    if (typeof expected === 'string') await expect(result).resolves.toBe(expected);
    else await expect(result).rejects.toMatchObject({ failure: { status: expected } });
  });
});

describe('deleteIfSame', () => {
  it.each<[string, () => Promise<unknown>, boolean | number]>([
    ['deleted', () => Promise.resolve({}), true],
    ['gone already', () => Promise.reject(apiError(404)), false],
    ['another object by now (uid precondition)', () => Promise.reject(apiError(409)), false],
    ['forbidden: thrown', () => Promise.reject(apiError(403)), 403],
  ])('%s', async (_, remove, expected) => {
    const result = deleteIfSame(remove, noRetry);
    if (typeof expected === 'boolean') await expect(result).resolves.toBe(expected);
    else await expect(result).rejects.toMatchObject({ failure: { status: expected } });
  });
});
