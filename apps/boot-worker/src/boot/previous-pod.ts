/**
 * A new pod of a name (a boot reusing it, a restart keeping it) is created only once the earlier
 * pod's object is gone: kpm's finalizer keeps it until the watcher has recorded its termination,
 * so it is waited out up to `podManagement.restartCleanupSeconds`, else `PreviousPodNotGone`.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { Cluster } from '../cluster';
import { checkStopping } from '../commands/command-context';
import type { BootFailure } from './process-booter';

/** Undefined once the pod is gone; the failure when it is still there after the timeout. */
export async function waitPreviousPodGone(
  cluster: Pick<Cluster, 'waitGone'>,
  pod: V1Pod,
  timeoutSeconds: number,
  signal?: AbortSignal,
): Promise<BootFailure | undefined> {
  const pending = await cluster.waitGone([pod], timeoutSeconds * 1000, signal);
  checkStopping(signal);
  return pending.length > 0 ? previousPodNotGone(pod, timeoutSeconds) : undefined;
}

function previousPodNotGone(pod: V1Pod, timeoutSeconds: number): BootFailure {
  const where = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
  return {
    ok: false,
    code: 'PreviousPodNotGone',
    message: `the ended pod ${where} of the earlier process is still there after ${timeoutSeconds} s (its termination is not recorded yet: is the watcher running?)`,
  };
}
