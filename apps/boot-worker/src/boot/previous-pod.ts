/**
 * A new pod of a name (a boot reusing it, a restart keeping it) is created only once the earlier
 * pod's object is gone: kpm's finalizer keeps it until the watcher has recorded its termination,
 * so it is waited out up to `podManagement.restartCleanupSeconds`, else `PreviousPodNotGone`.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { ProcessPods } from '../cluster/cluster';
import { checkStopping } from '../commands/command-context';
import { bootFailure, type BootFailure } from './boot-failure';

/** Undefined once the pod is gone; the failure when it is still there after the timeout. */
export async function waitPreviousPodGone(
  pods: Pick<ProcessPods, 'waitFor'>,
  pod: V1Pod,
  timeoutSeconds: number,
  signal?: AbortSignal,
): Promise<BootFailure | undefined> {
  const wait = await pods.waitFor([pod], (p) => p === undefined, timeoutSeconds * 1000, signal);
  checkStopping(signal);
  if (wait.pending.length === 0) return undefined;
  const where = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
  return bootFailure(
    'PreviousPodNotGone',
    `the ended pod ${where} of the earlier process is still there after ${timeoutSeconds} s (its termination is not recorded yet: is the watcher running?)`,
  );
}
