/**
 * Who may act on a session (docs/design.md "Session ownership"): its owner, or an operator
 * (`security.operatorUsers`). The boot-worker reads a session's owner from its namespace and
 * pods, the state service from its facts; both refuse with these words.
 */
import type { FieldError } from '../validation/validate';

/** What a command would act on: a session and, when known, its owner. */
export interface OwnedSession {
  session: string;
  /** Undefined: the session belongs to nobody yet (or its owner is not recorded). */
  owner?: string;
}

/** Who acts, and which users may act on any session. */
export interface ActingUser {
  user: string;
  operators: readonly string[];
}

/**
 * One error per session of `targets` that another user owns, naming that owner; none for an
 * operator. `path` names the command field that selected the sessions (`session` or `query`).
 */
export function foreignSessionErrors(
  acting: ActingUser,
  targets: readonly OwnedSession[],
  path: string,
): FieldError[] {
  if (acting.operators.includes(acting.user)) return [];
  const foreign = new Map<string, string>();
  for (const { session, owner } of targets) {
    if (owner !== undefined && owner !== acting.user) foreign.set(session, owner);
  }
  return [...foreign]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([session, owner]) => ({
      path,
      message: `session ${JSON.stringify(session)} belongs to user ${JSON.stringify(owner)}, not ${JSON.stringify(acting.user)}`,
    }));
}
