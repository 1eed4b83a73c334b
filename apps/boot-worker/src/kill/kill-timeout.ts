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
