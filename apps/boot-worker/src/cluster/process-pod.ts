import type { V1Pod } from '@kubernetes/client-node';
import { ROLES, roleOf, type ExecutableAndArguments, type Role } from '@kpm/contracts';
import type { KpmLabels } from '@kpm/kube';

/** A kpm pod read as the process it runs: what queries select on and kills act on. */
export interface ProcessPod {
  uuid: string;
  /** drunc's name of the process (its annotation; the pod's name for a pod without one). */
  name: string;
  /** The pod's name, derived from the process name (libs/kube pod-name.ts). */
  podName: string;
  session: string;
  user?: string;
  role: Role;
  treeId?: string;
  /** The command that created this pod (boot or restart). */
  commandId?: string;
  pod: V1Pod;
}

/** The process of a kpm pod; undefined for a pod without kpm's labels. */
export function processPodOf(pod: V1Pod, labels: KpmLabels): ProcessPod | undefined {
  const meta = pod.metadata;
  const uuid = meta?.labels?.[labels.uuid];
  if (!meta?.name || !meta.namespace || !uuid || !labels.isOurs(meta.labels)) return undefined;
  const treeId = meta.labels?.[labels.treeId];
  const role = meta.labels?.[labels.role] as Role | undefined;
  return {
    uuid,
    name: meta.annotations?.[labels.nameAnnotation] || meta.name,
    podName: meta.name,
    session: meta.namespace,
    user: meta.labels?.[labels.user],
    role: role && ROLES.includes(role) ? role : roleOf({ treeId, ...commandsOf(pod, labels) }),
    treeId,
    commandId: meta.annotations?.[labels.commandAnnotation],
    pod,
  };
}

/** The commands the pod's stored spec names (its role without a role label is decided from them). */
function commandsOf(
  pod: V1Pod,
  labels: KpmLabels,
): { executableAndArguments?: ExecutableAndArguments[] } {
  try {
    const spec = JSON.parse(pod.metadata?.annotations?.[labels.specAnnotation] ?? '{}') as {
      executableAndArguments?: unknown;
    };
    const commands: unknown[] = Array.isArray(spec.executableAndArguments)
      ? spec.executableAndArguments
      : [];
    const execs = commands.filter(
      (c): c is ExecutableAndArguments => typeof (c as { exec?: unknown })?.exec === 'string',
    );
    return { executableAndArguments: execs };
  } catch {
    return {};
  }
}
