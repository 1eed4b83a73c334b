/**
 * The exit policy's rule (docs/design.md §4 "Exit policy"), as a pure function: a process ended
 * that nobody asked to end; given its policy, its role and its automatic history, what happens —
 * ignore it, count it, restart it after a backoff within a budget, or fail its session. The
 * caller (exit-actions.ts) records the decision on the process's row and sends what it says.
 */
import {
  EXIT_POLICY_DEFAULTS,
  eventId,
  type AutomaticAction,
  type AutomaticRecord,
  type ExitPolicy,
  type ExitRule,
  type ProcessInstance,
  type ProcessTerminated,
  type Role,
} from '@kpm/contracts';

/** Who decides, as `AutomaticAction.decidedBy` says. */
export const DECIDED_BY = 'state';

export interface ExitCase {
  policy: ExitPolicy;
  termination: ProcessTerminated;
  role: Role;
  history?: AutomaticRecord;
  now: number;
}

/** The decision and the process's history after it. */
export interface ExitDecision {
  action: AutomaticAction;
  history: AutomaticRecord;
}

export function decideExit({ policy, termination, role, history, now }: ExitCase): ExitDecision {
  const index = policy.rules.findIndex((rule) => ruleMatches(rule, termination, role));
  const rule = index < 0 ? undefined : policy.rules[index];
  const base = baseAction(termination, now, index < 0 ? undefined : index);
  const before = history ?? { restarts: 0, recentRestarts: [] };
  const what = `exit ${termination.exitCode} (${termination.reason})`;
  const matched = index < 0 ? 'matched no rule' : `matched rules[${index}]`;
  switch (rule?.action ?? 'Count') {
    case 'Ignore':
      return decided(before, {
        ...base,
        action: 'Ignore',
        outcome: 'ignored',
        message: `${what} ${matched}: ignored`,
      });
    case 'Count':
      return decided(before, {
        ...base,
        action: 'Count',
        outcome: 'counted',
        message: `${what} ${matched}: counted`,
      });
    case 'FailSession': {
      const action: AutomaticAction = {
        ...base,
        action: 'FailSession',
        outcome: 'session-failed',
        commandId: eventId('automatic-terminate', termination.uuid, termination.podUid),
        message: `${what} ${matched}: the session ${termination.session} is terminated`,
      };
      return decided({ ...before, lastSent: action }, action);
    }
    case 'Restart':
      return restartDecision(policy, before, base, `${what} ${matched}`, now);
  }
}

/**
 * Ends the cluster caused, though the pod was being deleted: a lost node's pods are deleted by
 * the node lifecycle, an evicted or preempted pod by its evictor. Their ends are the policy's
 * to decide, as ends on their own are; any other deletion was asked by someone.
 */
const CLUSTER_ENDS = new Set(['NodeLost', 'Evicted', 'Preempted']);

/**
 * Whether an end is the exit policy's to decide: no kill, terminate or restart of kpm aimed at
 * it (`aimed`), and its pod was not being deleted, or the cluster did it (CLUSTER_ENDS).
 */
export function policyMayDecide(termination: ProcessTerminated, aimed: boolean): boolean {
  if (aimed) return false;
  return termination.deletionRequestedAt === undefined || CLUSTER_ENDS.has(termination.reason);
}

/** Every condition the rule gives holds (a rule without any matches every end). */
export function ruleMatches(rule: ExitRule, termination: ProcessTerminated, role: Role): boolean {
  const { exitCodes, reasons, roles } = rule;
  if (exitCodes) {
    const listed = exitCodes.values.includes(termination.exitCode);
    if (listed !== (exitCodes.operator === 'In')) return false;
  }
  if (reasons && !reasons.includes(termination.reason)) return false;
  if (roles && !roles.includes(role)) return false;
  return true;
}

/** The budget's count within the window, then the backoff doubling from `backoffSeconds`. */
function restartDecision(
  policy: ExitPolicy,
  before: AutomaticRecord,
  base: BaseAction,
  why: string,
  now: number,
): ExitDecision {
  const of = policy.maxRestarts ?? EXIT_POLICY_DEFAULTS.maxRestarts;
  const windowSeconds = policy.windowSeconds ?? EXIT_POLICY_DEFAULTS.windowSeconds;
  const since = now - windowSeconds * 1000;
  const recent = before.recentRestarts.filter((at) => Date.parse(at) > since);
  const budget = { of, windowSeconds };
  if (recent.length >= of) {
    return decided(
      { ...before, recentRestarts: recent },
      {
        ...base,
        ...budget,
        action: 'Restart',
        outcome: 'exhausted',
        message: `${why}: restart budget spent (${recent.length} of ${of} in ${windowSeconds} s), left DEAD`,
      },
    );
  }
  const attempt = recent.length + 1;
  const delaySeconds = backoffSeconds(policy, attempt);
  const dueAt = new Date(now + delaySeconds * 1000).toISOString();
  return decided(
    { ...before, recentRestarts: [...recent, base.decidedAt] },
    {
      ...base,
      ...budget,
      action: 'Restart',
      outcome: 'scheduled',
      attempt,
      dueAt,
      commandId: eventId('automatic-restart', base.uuid, base.podUid),
      message: `${why}: restart ${attempt} of ${of} in ${delaySeconds} s`,
    },
  );
}

/** `backoffSeconds` before attempt 1, doubled for each further attempt, up to `maxBackoffSeconds`. */
export function backoffSeconds(policy: ExitPolicy, attempt: number): number {
  const first = policy.backoffSeconds ?? EXIT_POLICY_DEFAULTS.backoffSeconds;
  const cap = Math.max(first, policy.maxBackoffSeconds ?? EXIT_POLICY_DEFAULTS.maxBackoffSeconds);
  return Math.min(cap, first * 2 ** (attempt - 1));
}

type BaseAction = Pick<
  AutomaticAction,
  'decidedBy' | 'decidedAt' | 'uuid' | 'podUid' | 'exitCode' | 'reason' | 'rule'
>;

function baseAction(t: ProcessTerminated, now: number, rule: number | undefined): BaseAction {
  return {
    decidedBy: DECIDED_BY,
    decidedAt: new Date(now).toISOString(),
    uuid: t.uuid,
    podUid: t.podUid,
    exitCode: t.exitCode,
    reason: t.reason,
    ...(rule === undefined ? {} : { rule }),
  };
}

function decided(history: AutomaticRecord, action: AutomaticAction): ExitDecision {
  return { action, history: { ...history, last: action } };
}

/** The command's `automatic` block: the action a row says sent it, if one does. */
export function automaticOf(
  commandId: string,
  processes: readonly ProcessInstance[],
): AutomaticAction | undefined {
  for (const p of processes)
    for (const sent of [p.automatic?.lastSent, p.automatic?.last])
      if (sent?.commandId === commandId && sent.outcome !== 'scheduled') return sent;
  return undefined;
}
