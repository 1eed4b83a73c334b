/**
 * Whose a session is: a command may act on a session only if its namespace, when there is one,
 * was created by kpm and belongs to the command's user, or the user is an operator
 * (`security.operatorUsers`). Boot and terminate check the session's namespace; kill, restart and
 * logs check the owner label of every process they select. The words of a refusal are the
 * contract's (`foreignSessionErrors`), which the state service uses for flush.
 */
import type { V1Namespace } from '@kubernetes/client-node';
import { foreignSessionErrors, type ActingUser, type FieldError } from '@kpm/contracts';
import type { KpmLabels } from '@kpm/kube';
import type { ProcessPod } from '../cluster/process-pod';

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

/** Why `acting` may not act on `session` (its namespace as found, undefined when there is none). */
export function sessionOwnershipErrors(
  session: string,
  acting: ActingUser,
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
  return foreignSessionErrors(acting, [{ session, owner: namespace?.owner }], 'session');
}

/** Why `acting` may not act on the processes a query selected: one error per foreign session. */
export function processOwnershipErrors(
  acting: ActingUser,
  processes: readonly Pick<ProcessPod, 'session' | 'user'>[],
): FieldError[] {
  return foreignSessionErrors(
    acting,
    processes.map((p) => ({ session: p.session, owner: p.user })),
    'query',
  );
}
