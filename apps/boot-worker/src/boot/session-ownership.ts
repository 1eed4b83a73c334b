/**
 * Whose a session is: a command may act on a session only if its namespace, when there is one,
 * was created by kpm and belongs to the command's user. Boot and terminate refuse with these
 * errors; a namespace without a user label belongs to nobody yet.
 */
import type { V1Namespace } from '@kubernetes/client-node';
import type { FieldError } from '@kpm/contracts';
import type { KpmLabels } from '@kpm/kube';

/** The session's namespace as the boot-worker found it. */
export interface NamespaceView {
  /** Carries kpm's creator label. */
  kpm: boolean;
  /** The user label of a kpm namespace: the session's owner. */
  owner?: string;
}

export function namespaceView(namespace: V1Namespace, labels: KpmLabels): NamespaceView {
  const values = namespace.metadata?.labels;
  return { kpm: labels.isOurs(values), owner: values?.[labels.user] };
}

/** Why `user` may not act on `session` (its namespace as found, undefined when there is none). */
export function sessionOwnershipErrors(
  session: string,
  user: string,
  namespace: NamespaceView | undefined,
): FieldError[] {
  if (namespace && !namespace.kpm) {
    return [
      {
        path: 'session',
        message: `namespace ${JSON.stringify(session)} exists and was not created by kpm`,
      },
    ];
  }
  if (namespace?.owner !== undefined && namespace.owner !== user) {
    return [
      {
        path: 'session',
        message: `session ${JSON.stringify(session)} belongs to user ${JSON.stringify(namespace.owner)}, not ${JSON.stringify(user)}`,
      },
    ];
  }
  return [];
}
