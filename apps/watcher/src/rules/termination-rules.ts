/**
 * When has a pod ended, and with which exit code (docs/design.md §6.5). Pure: a pod object
 * (typed from a list, or plain JSON from the watch stream — timestamps may be Date or string)
 * and the watch event type in, a verdict out.
 */
import type { V1ContainerStatus, V1ContainerStateTerminated, V1Pod } from '@kubernetes/client-node';
import type { ContainerType } from '@kpm/contracts';
import type { PodEventType } from '@kpm/kube';

/** The watch event types a verdict can be asked for; `ADDED` also stands for a listed pod. */
export type { PodEventType };

export interface TerminationFailureDetail {
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

export type Verdict = TerminalVerdict | { terminal: false };

const NOT_TERMINAL: Verdict = { terminal: false };

/**
 * The verdict on `pod` as seen with `eventType`. A pod is terminal when its phase is Succeeded or
 * Failed, when it is being deleted and no container runs, when a container waits for a fatal
 * reason, or when it was deleted.
 */
export function terminalVerdict(
  pod: V1Pod,
  eventType: PodEventType,
  fatalWaitingReasons: ReadonlySet<string>,
): Verdict {
  const phase = pod.status?.phase ?? 'Unknown';
  const inits = pod.status?.initContainerStatuses ?? [];
  const mains = pod.status?.containerStatuses ?? [];
  const deleted = eventType === 'DELETED';
  const deleting = Boolean(pod.metadata?.deletionTimestamp);
  const fatal = firstFatalWait(inits, mains, fatalWaitingReasons);
  const ended =
    phase === 'Succeeded' ||
    phase === 'Failed' ||
    deleted ||
    (deleting && ![...inits, ...mains].some((status) => status.state?.running)) ||
    fatal !== undefined;
  if (!ended) return NOT_TERMINAL;
  return exitOf(pod, phase, inits, mains, fatal, deleted || deleting);
}

function exitOf(
  pod: V1Pod,
  phase: string,
  inits: V1ContainerStatus[],
  mains: V1ContainerStatus[],
  fatal: FatalWait | undefined,
  deleted: boolean,
): TerminalVerdict {
  const podFacts = { podReason: pod.status?.reason, podMessage: pod.status?.message };

  // An init container that failed stopped the pod before its process started.
  for (const status of inits) {
    const ended = terminatedState(status);
    if (ended && ended.exitCode !== 0)
      return fromTerminated(ended, status, 'init', phase, podFacts);
  }
  const main = mainStatus(pod, mains);
  const ended = main && terminatedState(main);
  if (main && ended) return fromTerminated(ended, main, 'main', phase, podFacts);
  if (phase === 'Succeeded') return { terminal: true, exitCode: 0, reason: 'Completed', phase };
  if (fatal) {
    return {
      terminal: true,
      exitCode: -1,
      reason: fatal.reason,
      phase,
      failure: withoutEmpty({
        containerName: fatal.status.name,
        containerType: fatal.type,
        containerReason: fatal.reason,
        containerMessage: fatal.status.state?.waiting?.message,
        ...podFacts,
      }),
    };
  }
  if (deleted) {
    const ran = mains.some((status) => status.state?.running || terminatedState(status));
    return {
      terminal: true,
      exitCode: -1,
      reason: ran ? 'PodDeleted' : 'DeletedBeforeStart',
      phase,
      failure: withoutEmpty({ ...podFacts }),
    };
  }
  // Failed without a container verdict: evicted, deadline exceeded, node lost.
  return {
    terminal: true,
    exitCode: -1,
    reason: pod.status?.reason ?? 'PodFailed',
    phase,
    failure: withoutEmpty({ ...podFacts }),
  };
}

function fromTerminated(
  ended: V1ContainerStateTerminated,
  status: V1ContainerStatus,
  type: ContainerType,
  phase: string,
  podFacts: Pick<TerminationFailureDetail, 'podReason' | 'podMessage'>,
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

/** The current terminated state, or the last one (restartPolicy Never rarely needs it). */
function terminatedState(status: V1ContainerStatus): V1ContainerStateTerminated | undefined {
  return status.state?.terminated ?? status.lastState?.terminated;
}

interface FatalWait {
  status: V1ContainerStatus;
  type: ContainerType;
  reason: string;
}

function firstFatalWait(
  inits: V1ContainerStatus[],
  mains: V1ContainerStatus[],
  fatalReasons: ReadonlySet<string>,
): FatalWait | undefined {
  const candidates: Array<[V1ContainerStatus, ContainerType]> = [
    ...inits.map((status): [V1ContainerStatus, ContainerType] => [status, 'init']),
    ...mains.map((status): [V1ContainerStatus, ContainerType] => [status, 'main']),
  ];
  for (const [status, type] of candidates) {
    const reason = status.state?.waiting?.reason;
    if (reason && fatalReasons.has(reason)) return { status, type, reason };
  }
  return undefined;
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
