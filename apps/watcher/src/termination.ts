/**
 * A termination as the watcher decided it, and its `kpm.terminations` record (docs/design.md §5.2).
 * The record's id derives from the pod uid, so a re-publish after a crash or a failover is the same
 * event to every consumer.
 */
import type { V1Pod } from '@kubernetes/client-node';
import {
  buildEvent,
  encodeEvent,
  terminationEventId,
  TRACEPARENT,
  TerminationType,
  type DetectionSource,
  type ProcessTerminated,
} from '@kpm/contracts';
import type { OutboundRecord } from '@kpm/kafka';
import type { KpmLabels } from '@kpm/kube';
import type { TerminalVerdict } from './rules/termination-rules';

/**
 * Which process a pod ran, from kpm's labels and its name annotation (drunc's name of the
 * process; the pod name and uid when one is missing).
 */
export interface PodIdentity {
  podUid: string;
  namespace: string;
  podName: string;
  uuid: string;
  session: string;
  name: string;
  user: string;
  /** The trace of the command that created the pod (its annotation), carried to the record. */
  traceparent?: string;
}

export interface Termination {
  identity: PodIdentity;
  verdict: TerminalVerdict;
  detectedBy: DetectionSource;
  /** When the watcher first saw the pod terminal (RFC 3339). */
  observedAt: string;
  /** The pod's deletionTimestamp when it was seen ending: its end was asked for. */
  deletionRequestedAt?: string;
}

export function podIdentity(pod: V1Pod, labels: KpmLabels): PodIdentity {
  const meta = pod.metadata ?? {};
  const podLabels = meta.labels ?? {};
  const podUid = meta.uid ?? '';
  const namespace = meta.namespace ?? '';
  const podName = meta.name ?? '';
  return {
    podUid,
    namespace,
    podName,
    uuid: podLabels[labels.uuid] || podUid,
    session: podLabels[labels.session] || namespace,
    name: meta.annotations?.[labels.nameAnnotation] || podLabels[labels.app] || podName,
    user: podLabels[labels.user] || 'unknown',
    ...traceOf(meta.annotations?.[labels.traceAnnotation]),
  };
}

function traceOf(traceparent: string | undefined): { traceparent?: string } {
  return traceparent && TRACEPARENT.test(traceparent) ? { traceparent } : {};
}

/** The event data of docs/design.md §5.2 `daq.kpm.process.terminated.v1`. */
function terminatedData(termination: Termination): ProcessTerminated {
  const { identity, verdict } = termination;
  const data: ProcessTerminated = {
    uuid: identity.uuid,
    session: identity.session,
    name: identity.name,
    user: identity.user,
    namespace: identity.namespace,
    podName: identity.podName,
    podUid: identity.podUid,
    exitCode: verdict.exitCode,
    reason: verdict.reason,
    phase: verdict.phase,
    observedAt: termination.observedAt,
    detectedBy: termination.detectedBy,
  };
  if (verdict.signal !== undefined) data.signal = verdict.signal;
  if (verdict.failure) data.failure = { ...verdict.failure };
  if (verdict.startedAt) data.startedAt = verdict.startedAt;
  if (verdict.finishedAt) data.finishedAt = verdict.finishedAt;
  if (termination.deletionRequestedAt) data.deletionRequestedAt = termination.deletionRequestedAt;
  return data;
}

/** The Kafka record: keyed by session, id from the pod uid, time = when it was observed. */
export function terminationRecord(termination: Termination, source: string): OutboundRecord {
  const event = buildEvent({
    id: terminationEventId(termination.identity.podUid),
    type: TerminationType.processTerminated,
    source,
    subject: termination.identity.session,
    time: termination.observedAt,
    traceparent: termination.identity.traceparent,
    data: terminatedData(termination),
  });
  return encodeEvent(event);
}
