/**
 * A kill or terminate inside the caller's deadline. drunc's driver gives both 60 s, while kpm's
 * staged kill may wait `killTimeoutSeconds` per stage before it escalates: the gateway gives the
 * command a budget (`deadlineSeconds`), the boot-worker shortens each stage's grace to fit it
 * (design §6.4), and the reply says so in its initial metadata — a successful answer has no
 * message drunc would show, and the ProcessInstanceList has no field for it.
 */
import { Metadata, type ServerUnaryCall } from '@grpc/grpc-js';

/** The seconds kpm planned the kill to end within. */
export const KILL_WITHIN_KEY = 'kpm-kill-within-seconds';
/** The same in words, for a person reading the call's metadata. */
export const KILL_PLAN_KEY = 'kpm-kill-plan';

/**
 * The seconds a kill or terminate may take so that drunc has its answer by `answerByMs` (its
 * gRPC deadline less the margin): what is left, less a tenth (at least 2 s) for the flush that
 * follows and the completion's way back. drunc's 60 s give a kill 53 s, so processes that
 * ignore SIGTERM no longer outlive the call.
 */
export function killBudgetSeconds(answerByMs: number, now = Date.now()): number {
  const left = (answerByMs - now) / 1000;
  return Math.max(1, Math.floor(left - Math.max(2, left / 10)));
}

/** What the reply's metadata says of a kill planned within `budgetSeconds`. */
export function killPlanMetadata(
  rpc: 'kill' | 'terminate',
  budgetSeconds: number,
  callerDeadline: boolean,
): Metadata {
  const inside = callerDeadline ? "the call's deadline" : "the gateway's default deadline";
  const metadata = new Metadata();
  metadata.set(KILL_WITHIN_KEY, String(budgetSeconds));
  metadata.set(
    KILL_PLAN_KEY,
    `kpm plans this ${rpc} to end within ${budgetSeconds} s, inside ${inside}: each stage's ` +
      'SIGTERM grace is shortened so that a process still running gets SIGKILL in time',
  );
  return metadata;
}

/**
 * Sends the plan as the reply's initial metadata, once the work has answered (a refused call
 * says nothing of a plan). `budgetSeconds` is the budget at the call's start: a command sent or
 * retried later recomputes its own, never larger, so the number said is an upper bound.
 */
export function sayKillPlan(
  call: Pick<ServerUnaryCall<unknown, unknown>, 'getDeadline' | 'sendMetadata'>,
  rpc: 'kill' | 'terminate',
  budgetSeconds: number,
): void {
  const deadline = call.getDeadline();
  const given = Number.isFinite(deadline instanceof Date ? deadline.getTime() : deadline);
  call.sendMetadata(killPlanMetadata(rpc, budgetSeconds, given));
}
