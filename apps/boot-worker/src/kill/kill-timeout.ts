/**
 * How long a kill takes: each stage waits the grace period, then the escalation margin, then
 * the wait after a forced kill; the command's bound is that per stage times the stages (at
 * least one), unless the command gives its own. `kill.accepted` carries these numbers.
 */
import type { KpmSettings } from '@kpm/config';

export interface KillTiming {
  gracePeriodSeconds: number;
  /** Past grace + margin a pod still running is killed with grace 0. */
  escalationMarginSeconds: number;
  /** How long a stage waits after that escalation. */
  forcedKillWaitSeconds: number;
}

export type KillSettings = Pick<
  KpmSettings['podManagement'],
  'killTimeoutSeconds' | 'killEscalationMarginSeconds' | 'forcedKillWaitSeconds'
>;

/** The timing under the settings; the command's grace period, if it gives one, wins. */
export function killTiming(settings: KillSettings, gracePeriodSeconds?: number): KillTiming {
  return {
    gracePeriodSeconds: gracePeriodSeconds ?? settings.killTimeoutSeconds,
    escalationMarginSeconds: settings.killEscalationMarginSeconds,
    forcedKillWaitSeconds: settings.forcedKillWaitSeconds,
  };
}

/**
 * A kill that must end within `deadlineSeconds` (the caller's deadline, e.g. drunc's 60 s for
 * kill and terminate): each stage gets an equal share; within it the escalation margin and the
 * wait after the forced kill take at most a quarter each, the grace period what is left (never
 * more than the command's or the settings'). So a process that ignores SIGTERM is killed with
 * grace 0 in time for the last stage to end inside the deadline.
 */
export function killTimingWithin(
  settings: KillSettings,
  stageCount: number,
  deadlineSeconds: number,
  gracePeriodSeconds?: number,
): KillTiming {
  const share = Math.floor(deadlineSeconds / Math.max(1, stageCount));
  const escalationMarginSeconds = Math.min(
    settings.killEscalationMarginSeconds,
    Math.floor(share / 4),
  );
  const forcedKillWaitSeconds = Math.min(settings.forcedKillWaitSeconds, Math.floor(share / 4));
  const grace = gracePeriodSeconds ?? settings.killTimeoutSeconds;
  return {
    gracePeriodSeconds: Math.max(
      0,
      Math.min(grace, share - escalationMarginSeconds - forcedKillWaitSeconds),
    ),
    escalationMarginSeconds,
    forcedKillWaitSeconds,
  };
}

/** The command's bound: the state service reports `timed_out` with the rest pending after it. */
export function killTimeoutSeconds(
  timing: KillTiming,
  stageCount: number,
  requestedSeconds?: number,
): number {
  return requestedSeconds ?? Math.max(1, stageCount) * stageSeconds(timing);
}

/**
 * Unless the command set its own bound, the kill runs on past it while its pods keep ending,
 * until none has ended for one stage's time: on a loaded cluster the deletes of a thousand pods
 * take longer than one pod's grace period, and a healthy drain is not a timeout.
 */
export function killProgressTimeoutSeconds(
  timing: KillTiming,
  requestedSeconds?: number,
): number | undefined {
  return requestedSeconds === undefined ? stageSeconds(timing) : undefined;
}

function stageSeconds(timing: KillTiming): number {
  return timing.gracePeriodSeconds + timing.escalationMarginSeconds + timing.forcedKillWaitSeconds;
}
