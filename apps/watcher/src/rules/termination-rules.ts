/**
 * With which exit code a pod ended (docs/design.md §6.5); whether it ended is libs/kube's
 * `podEnding`. Pure: a pod object
 * (typed from a list, or plain JSON from the watch stream — timestamps may be Date or string)
 * and the watch event type in, a verdict out.
 */
import { posix } from 'node:path';
import type { V1ContainerStatus, V1ContainerStateTerminated, V1Pod } from '@kubernetes/client-node';
import { NO_EXIT_CODE, type ContainerType } from '@kpm/contracts';
import {
  nodeLossText,
  podEnding,
  type FatalWait,
  type ImagePullGrace,
  type NodeLoss,
  type PodEndCause,
  type PodEnding,
  type PodEventType,
} from '@kpm/kube';

/** The watch event types a verdict can be asked for; `ADDED` also stands for a listed pod. */
export type { PodEventType };

interface TerminationFailureDetail {
  containerName?: string;
  containerType?: ContainerType;
  containerReason?: string;
  containerMessage?: string;
  podReason?: string;
  podMessage?: string;
}

/** How a pod ended: the pod's own facts in the terminated event of docs/design.md §5.2. */
export interface TerminalVerdict {
  terminal: true;
  exitCode: number;
  reason: string;
  signal?: number;
  phase: string;
  failure?: TerminationFailureDetail;
  startedAt?: string;
  finishedAt?: string;
}

type Verdict = TerminalVerdict | { terminal: false };

const NOT_TERMINAL: Verdict = { terminal: false };

/** drunc's reasons: a pod that Succeeded, and one deleted after it ran. */
const GRACEFUL_SHUTDOWN = 'GracefulShutdown';
const POD_DELETED = 'PodDeleted';
/** kpm's reason for a process whose node the cluster lost: nobody can tell its exit code. */
export const NODE_LOST = 'NodeLost';

type PodFacts = Pick<TerminationFailureDetail, 'podReason' | 'podMessage'>;

/**
 * The verdict on `pod` as seen with `eventType`: whether it ended is `podEnding`'s rule (libs/kube),
 * with a DELETED event counting as removed and `nodeLoss` the loss of its node, if lost; how is
 * `exitOf`.
 */
export function terminalVerdict(
  pod: V1Pod,
  eventType: PodEventType,
  fatalWaitingReasons: ReadonlySet<string>,
  imagePull?: ImagePullGrace,
  nodeLoss?: NodeLoss,
): Verdict {
  const ending = podEnding({
    pod,
    fatalReasons: fatalWaitingReasons,
    removed: eventType === 'DELETED',
    imagePull,
    nodeLost: nodeLoss !== undefined,
  });
  return ending.ended ? exitOf(pod, ending, nodeLoss) : NOT_TERMINAL;
}

/**
 * The exit of an ended pod: a container's terminated state when there is one (a failed init
 * container first: it stopped the pod before its process started), else what the end's cause says.
 */
function exitOf(
  pod: V1Pod,
  ending: Extract<PodEnding, { ended: true }>,
  nodeLoss: NodeLoss | undefined,
): TerminalVerdict {
  const phase = pod.status?.phase ?? 'Unknown';
  const podFacts: PodFacts =
    ending.cause === 'node-lost' && nodeLoss
      ? { podReason: NODE_LOST, podMessage: nodeLossText(nodeLoss) }
      : { podReason: pod.status?.reason, podMessage: pod.status?.message };
  const verdict =
    containerExit(pod, phase, podFacts) ??
    exitOfCause(pod, phase, podFacts, ending.cause, ending.fatalWait);
  // drunc's watcher names every pod that Succeeded a graceful shutdown, whatever the kubelet said.
  return ending.cause === 'succeeded' ? { ...verdict, reason: GRACEFUL_SHUTDOWN } : verdict;
}

function containerExit(pod: V1Pod, phase: string, podFacts: PodFacts): TerminalVerdict | undefined {
  for (const status of pod.status?.initContainerStatuses ?? []) {
    const ended = terminatedState(status);
    if (ended && ended.exitCode !== 0)
      return fromTerminated(ended, status, 'init', phase, podFacts);
  }
  const main = mainStatus(pod, pod.status?.containerStatuses ?? []);
  const ended = main && terminatedState(main);
  return main && ended ? fromTerminated(ended, main, 'main', phase, podFacts) : undefined;
}

/** An end without a container's exit code: NO_EXIT_CODE (−1) with the reason of the cause. */
function exitOfCause(
  pod: V1Pod,
  phase: string,
  podFacts: PodFacts,
  cause: PodEndCause,
  fatal: FatalWait | undefined,
): TerminalVerdict {
  switch (cause) {
    case 'succeeded':
      return { terminal: true, exitCode: 0, reason: GRACEFUL_SHUTDOWN, phase };
    case 'fatal-wait':
      return fatalExit(pod, phase, podFacts, fatal!);
    case 'node-lost':
      // Its containers' last "running" is stale: no exit code is invented.
      return {
        terminal: true,
        exitCode: NO_EXIT_CODE,
        reason: NODE_LOST,
        phase,
        failure: withoutEmpty(podFacts),
      };
    case 'deleted': {
      const ran = (pod.status?.containerStatuses ?? []).some(hasRun);
      const reason = ran ? POD_DELETED : 'DeletedBeforeStart';
      return {
        terminal: true,
        exitCode: NO_EXIT_CODE,
        reason,
        phase,
        failure: withoutEmpty(podFacts),
      };
    }
    case 'failed':
      // Failed without a container verdict: evicted, deadline exceeded, node lost.
      return {
        terminal: true,
        exitCode: NO_EXIT_CODE,
        reason: pod.status?.reason ?? 'PodFailed',
        phase,
        failure: withoutEmpty(podFacts),
      };
  }
}

function fatalExit(
  pod: V1Pod,
  phase: string,
  podFacts: PodFacts,
  fatal: FatalWait,
): TerminalVerdict {
  const message = fatal.status.state?.waiting?.message;
  return {
    terminal: true,
    exitCode: NO_EXIT_CODE,
    reason: fatal.reason,
    phase,
    failure: withoutEmpty({
      containerName: fatal.status.name,
      containerType: fatal.containerType,
      containerReason: fatal.reason,
      containerMessage: message && withHostPath(pod, fatal.status.name, message),
      ...podFacts,
    }),
  };
}

/**
 * The kubelet's message naming a volume mount it could not prepare (`failed to prepare subPath
 * for volumeMount "kpm-data" of container "ru-01"`: e.g. a subPath that a symlink leads out of
 * its volume) followed by the host path that mount is of, which the kubelet leaves out; any
 * other message as it is.
 */
export function withHostPath(pod: V1Pod, container: string, message: string): string {
  const name = /volumeMount "([^"]+)"/.exec(message)?.[1];
  if (name === undefined) return message;
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  const mount = containers
    .find((c) => c.name === container)
    ?.volumeMounts?.find((m) => m.name === name);
  const volume = pod.spec?.volumes?.find((v) => v.name === name)?.hostPath?.path;
  if (!mount || volume === undefined) return message;
  const path = mount.subPath ? posix.join(volume, mount.subPath) : volume;
  const below = mount.subPath ? ` (subPath ${mount.subPath} of the hostPath volume ${volume})` : '';
  return `${message}: host path ${path}${below}, mounted at ${mount.mountPath}`;
}

function fromTerminated(
  ended: V1ContainerStateTerminated,
  status: V1ContainerStatus,
  type: ContainerType,
  phase: string,
  podFacts: PodFacts,
): TerminalVerdict {
  const exitCode = ended.exitCode;
  const reason = ended.reason ?? (exitCode === 0 ? 'Completed' : 'Error');
  const signal = ended.signal || (exitCode > 128 && exitCode <= 128 + 64 ? exitCode - 128 : 0);
  const verdict: TerminalVerdict = { terminal: true, exitCode, reason, phase };
  if (signal) verdict.signal = signal;
  const startedAt = isoTime(ended.startedAt);
  const finishedAt = isoTime(ended.finishedAt);
  if (startedAt) verdict.startedAt = startedAt;
  if (finishedAt) verdict.finishedAt = finishedAt;
  if (exitCode !== 0) {
    verdict.failure = withoutEmpty({
      containerName: status.name,
      containerType: type,
      containerReason: reason,
      containerMessage: ended.message,
      ...podFacts,
    });
  }
  return verdict;
}

/** The process's container: the first one of the spec (kpm runs one), else the first status. */
function mainStatus(pod: V1Pod, mains: V1ContainerStatus[]): V1ContainerStatus | undefined {
  const name = pod.spec?.containers?.[0]?.name;
  return mains.find((status) => status.name === name) ?? mains[0];
}

/**
 * The reason of the terminated state a kubelet writes for a container it cannot find when the
 * pod is terminated: exit code 137, no container id, no start. Seen on a real node for a pod
 * deleted while it was still being created (a volume not yet mountable): the process never ran.
 * It is no verdict on the process (k8s #104107, #82218): the end is the pod's deletion.
 */
const CONTAINER_STATUS_UNKNOWN = 'ContainerStatusUnknown';

/**
 * The current terminated state, or the last one (restartPolicy Never rarely needs it); never
 * the kubelet's stand-in for a container it could not find.
 */
function terminatedState(status: V1ContainerStatus): V1ContainerStateTerminated | undefined {
  const ended = status.state?.terminated ?? status.lastState?.terminated;
  return ended?.reason === CONTAINER_STATUS_UNKNOWN ? undefined : ended;
}

/** Whether a container was ever started: running, a container id, or a real exit. */
function hasRun(status: V1ContainerStatus): boolean {
  return Boolean(
    status.state?.running || status.started || status.containerID || terminatedState(status),
  );
}

/** RFC 3339 from a Date (typed list) or a string (watch JSON); undefined for anything else. */
export function isoTime(value: unknown): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (typeof value === 'string' && value !== '') {
    const parsed = new Date(value);
    return Number.isNaN(parsed.getTime()) ? undefined : parsed.toISOString();
  }
  return undefined;
}

function withoutEmpty(detail: TerminationFailureDetail): TerminationFailureDetail | undefined {
  const entries = Object.entries(detail).filter(([, value]) => value !== undefined && value !== '');
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/**
 * A pod the watcher knew that a re-list no longer shows: it ended while nobody watched and its
 * finalizer was removed by someone else (docs/design.md §6.5, last row).
 */
export function vanishedVerdict(lastPhase: string | undefined): TerminalVerdict {
  return {
    terminal: true,
    exitCode: NO_EXIT_CODE,
    reason: POD_DELETED,
    phase: lastPhase ?? 'Unknown',
  };
}
