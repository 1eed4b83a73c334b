/**
 * Has this pod ended, and how: the one rule both the boot-worker (waits, name reuse) and the
 * watcher (terminations) apply.
 *
 * A pod has ended when
 *   - it is gone: no object (a read found none) or a DELETED watch event;
 *   - its phase is terminal, Succeeded or Failed (Kubernetes' `podutil.IsPodTerminal`);
 *   - a container, init or main, waits for a fatal reason (a bad image never starts) — for a
 *     transient pull failure (ErrImagePull, ImagePullBackOff: a registry's rate limit, a network
 *     blip) only once `imagePull.graceSeconds` have passed since the pod started, as Airflow treats
 *     pull-QPS errors; an invalid image name stays fatal at once; or
 *   - it is being deleted (deletionTimestamp) and no container, init or main, runs; or
 *   - it is being deleted on a node the cluster lost (`nodeLost`, node-loss.ts): no kubelet is
 *     left to stop its containers or report them, so their last "running" is stale and the end
 *     is now (Kubernetes' taint eviction, or kpm's own kill, asked the deletion).
 * Terminated containers alone do not end a pod: the kubelet sets the terminal phase in the same
 * status update for restartPolicy Never, and under any other policy the container restarts. A
 * running init container of a pod being deleted is still stopping, like a main one.
 *
 * How it ended (`cause`), most specific first: `succeeded`; `fatal-wait`; `node-lost`; `deleted`
 * (gone, or being deleted: the deletion explains a Failed phase the kubelet set for it); `failed`.
 *
 * Pods come typed from lists and as plain JSON from watches: only fields present in both are read.
 */
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';

export type PodEndCause = 'succeeded' | 'fatal-wait' | 'node-lost' | 'deleted' | 'failed';

/** A container waiting for a reason after which it never starts. */
export interface FatalWait {
  status: V1ContainerStatus;
  containerType: 'init' | 'main';
  reason: string;
}

export type PodEnding =
  { ended: false } | { ended: true; cause: PodEndCause; fatalWait?: FatalWait };

interface PodEndingInput {
  /** The pod as last seen; undefined when it is gone. */
  pod: V1Pod | undefined;
  /** Waiting reasons after which a container never starts (`watcher.fatalWaitingReasons`). */
  fatalReasons: ReadonlySet<string>;
  /** The pod was seen removed (a DELETED watch event) although its last state is known. */
  removed?: boolean;
  /** Transient pull failures end the pod only after this grace (absent or 0: at once). */
  imagePull?: ImagePullGrace;
  /** The pod's node is lost (its Ready condition Unknown): a deletion ends the pod at once. */
  nodeLost?: boolean;
}

/** How long a pod may retry pulling its image before a pull failure ends it. */
export interface ImagePullGrace {
  graceSeconds: number;
  now: Date;
}

/** Waiting reasons of a pull that may still succeed on a later try. */
const TRANSIENT_PULL_REASONS: ReadonlySet<string> = new Set(['ErrImagePull', 'ImagePullBackOff']);

const RUNNING: PodEnding = { ended: false };

/** Whether the pod has ended, and the cause (see the file's header for the rule). */
export function podEnding({
  pod,
  fatalReasons,
  removed = false,
  imagePull,
  nodeLost = false,
}: PodEndingInput): PodEnding {
  if (!pod) return { ended: true, cause: 'deleted' };
  const phase = pod.status?.phase;
  const deleting = removed || Boolean(pod.metadata?.deletionTimestamp);
  const fatalWait = firstFatalWait(pod, fatalReasons, imagePull);
  if (phase === 'Succeeded') return { ended: true, cause: 'succeeded' };
  if (fatalWait) return { ended: true, cause: 'fatal-wait', fatalWait };
  if (deleting && nodeLost) return { ended: true, cause: 'node-lost' };
  if (deleting && (removed || phase === 'Failed' || !anyContainerRunning(pod)))
    return { ended: true, cause: 'deleted' };
  if (phase === 'Failed') return { ended: true, cause: 'failed' };
  return RUNNING;
}

/** `podEnding(...).ended` for callers that need no cause. */
export function hasPodEnded(
  pod: V1Pod | undefined,
  fatalReasons: ReadonlySet<string>,
  imagePull?: ImagePullGrace,
): boolean {
  return podEnding({ pod, fatalReasons, imagePull }).ended;
}

/**
 * The first container, init containers first, that waits for a fatal reason (a transient pull
 * failure only after its grace).
 */
export function firstFatalWait(
  pod: V1Pod,
  fatalReasons: ReadonlySet<string>,
  imagePull?: ImagePullGrace,
): FatalWait | undefined {
  const withinGrace = pullGraceRunning(pod, imagePull);
  const candidates = [
    ...(pod.status?.initContainerStatuses ?? []).map((status) => ({
      status,
      type: 'init' as const,
    })),
    ...(pod.status?.containerStatuses ?? []).map((status) => ({ status, type: 'main' as const })),
  ];
  for (const { status, type } of candidates) {
    const reason = status.state?.waiting?.reason;
    if (!reason || !fatalReasons.has(reason)) continue;
    if (withinGrace && TRANSIENT_PULL_REASONS.has(reason)) continue;
    return { status, containerType: type, reason };
  }
  return undefined;
}

/** Whether the pod is still within its image-pull grace, counted from its start (or creation). */
function pullGraceRunning(pod: V1Pod, imagePull: ImagePullGrace | undefined): boolean {
  if (!imagePull || imagePull.graceSeconds <= 0) return false;
  // Typed lists give Dates, watch JSON strings.
  const started: unknown = pod.status?.startTime ?? pod.metadata?.creationTimestamp;
  const since = started instanceof Date ? started.getTime() : Date.parse(String(started));
  if (Number.isNaN(since)) return false;
  return imagePull.now.getTime() - since < imagePull.graceSeconds * 1000;
}

function anyContainerRunning(pod: V1Pod): boolean {
  const statuses = [
    ...(pod.status?.initContainerStatuses ?? []),
    ...(pod.status?.containerStatuses ?? []),
  ];
  return statuses.some((status) => Boolean(status.state?.running));
}
