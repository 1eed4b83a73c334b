/**
 * A restart in progress, kept as a creator-labelled ConfigMap in the session: once the old pod is
 * gone its spec annotation is gone too, so a restart redelivered after a crash between the kill
 * and the new pod reads the spec from here. Deleted when the restart has booted.
 */
import type { V1ConfigMap, V1Namespace } from '@kubernetes/client-node';
import {
  DRUNC_CONTROLLER_EXECUTABLES,
  eventId,
  roleOf,
  validateData,
  ProcessSpec,
  type FieldError,
} from '@kpm/contracts';
import type { KpmLabels } from '@kpm/kube';
import type { PlannedProcess } from '../boot/planned-process';
import type { ProcessPod } from '../cluster/process-pod';

export interface RestartTarget {
  uuid: string;
  session: string;
  user: string;
  spec: ProcessSpec & { uuid: string };
}

/** The label value naming the restart command (command ids may not be label values). */
export function restartLabel(labels: KpmLabels, commandId: string): Record<string, string> {
  return { [`restart-command.${labels.domain}`]: eventId('restart', commandId) };
}

export function restartRecord(
  labels: KpmLabels,
  commandId: string,
  target: RestartTarget,
): V1ConfigMap {
  return {
    metadata: {
      name: `kpm-restart-${target.uuid}`,
      namespace: target.session,
      labels: {
        [labels.creator]: 'kpm',
        [labels.uuid]: target.uuid,
        ...restartLabel(labels, commandId),
      },
      annotations: { [labels.commandAnnotation]: commandId },
    },
    data: { spec: JSON.stringify(target.spec), user: target.user },
  };
}

/**
 * A record is trusted only in a namespace kpm created, owned by the user the record names:
 * anyone who can write a ConfigMap in another namespace could otherwise forge one, labels and all.
 */
export function isTrustedRecord(
  record: V1ConfigMap,
  namespace: V1Namespace | undefined,
  labels: KpmLabels,
): boolean {
  if (!namespace || namespace.metadata?.name !== record.metadata?.namespace) return false;
  const values = namespace.metadata?.labels;
  const owner = values?.[labels.user];
  return labels.isOurs(values) && owner !== undefined && owner === record.data?.user;
}

/** The target a record holds; undefined for a record that is not readable (then it is ignored). */
export function targetOf(record: V1ConfigMap, labels: KpmLabels): RestartTarget | undefined {
  const uuid = record.metadata?.labels?.[labels.uuid];
  const session = record.metadata?.namespace;
  const { spec, user } = record.data ?? {};
  if (!uuid || !session || !spec || !user) return undefined;
  try {
    return { uuid, session, user, spec: { ...(JSON.parse(spec) as ProcessSpec), uuid } };
  } catch {
    return undefined;
  }
}

/** The process a restart boots again: the same uuid, the spec as stored, drunc's role. */
export function plannedRestart(
  target: RestartTarget,
  controllerExecutables: readonly string[] = DRUNC_CONTROLLER_EXECUTABLES,
): PlannedProcess {
  return {
    index: 0,
    uuid: target.uuid,
    spec: target.spec,
    role: roleOf(target.spec, controllerExecutables),
  };
}

/** The target of a running process: the spec stored on its pod, validated again (it is read back). */
export function targetOfPod(
  process: ProcessPod,
  labels: KpmLabels,
): { ok: true; target: RestartTarget } | { ok: false; errors: FieldError[] } {
  const raw = process.pod.metadata?.annotations?.[labels.specAnnotation];
  const refuse = (why: string) => ({
    ok: false as const,
    errors: [
      {
        path: 'query',
        message: `selects ${process.name} (${process.session}), which cannot be restarted: ${why}`,
      },
    ],
  });
  if (!raw || !process.user) return refuse('its pod carries no process spec or user');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return refuse('its process spec annotation is not JSON');
  }
  const checked = validateData(ProcessSpec, parsed);
  if (!checked.ok)
    return refuse(
      `its process spec is invalid (${checked.errors.map((e) => `${e.path} ${e.message}`).join('; ')})`,
    );
  const spec = { ...checked.value, uuid: process.uuid };
  return {
    ok: true,
    target: { uuid: process.uuid, session: process.session, user: process.user, spec },
  };
}
