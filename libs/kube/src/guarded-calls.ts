/**
 * The two ways kpm's gateways write that tolerate a concurrent or redelivered writer: a create
 * that takes the existing object on 409, and a delete guarded by a uid precondition that is
 * content when the object is gone (404) or is another one by now (409).
 */
import { failureOf } from './kube-errors';
import { withKubeRetry, type KubeRetryOptions } from './kube-retry';

/**
 * Creates with retries; when the name is taken, the object `readExisting` finds is returned
 * (the conflict is thrown again when it finds none: it went meanwhile or is not visible to kpm).
 */
export async function createOrExisting<T>(
  create: () => Promise<T>,
  readExisting: () => Promise<T | undefined>,
  retry: KubeRetryOptions,
): Promise<T> {
  try {
    return await withKubeRetry(create, retry);
  } catch (error) {
    if (failureOf(error).kind !== 'conflict') throw error;
    const existing = await readExisting();
    if (existing === undefined) throw error;
    return existing;
  }
}

/** Deletes with retries; false when the object is gone already or another one has its name. */
export async function deleteIfSame(
  remove: () => Promise<unknown>,
  retry: KubeRetryOptions,
): Promise<boolean> {
  try {
    await withKubeRetry(remove, retry);
    return true;
  } catch (error) {
    const kind = failureOf(error).kind;
    if (kind === 'not-found' || kind === 'conflict') return false;
    throw error;
  }
}
