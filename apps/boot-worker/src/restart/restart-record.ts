/**
 * A restart in progress, kept as a creator-labelled ConfigMap in the session: once the old pod is
 * gone its spec annotation is gone too, so a restart redelivered after a crash between the kill
 * and the new pod reads the spec from here. Deleted when the restart has booted.
 */
import type { V1ConfigMap, V1Namespace } from '@kubernetes/client-node';
import { eventId, type ProcessSpec } from '@kpm/contracts';
import type { KpmLabels } from '@kpm/kube';

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
