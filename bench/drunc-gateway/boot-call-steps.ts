/**
 * Where a drunc boot call's time goes, step by step: the call's send and answer on drunc's side
 * lined up with its command's records on Kafka (their CreateTime; one machine, one clock). Pure:
 * unit-tested beside.
 */
import { percentile } from '../e2e/stats';

/** A boot call as drunc's side saw it, ms since the epoch. */
export interface CallWindow {
  sentMs: number;
  answeredMs: number;
}

/** A boot command's records on Kafka, ms since the epoch (CreateTime). */
export interface BootRecords {
  commandMs: number;
  acceptedMs: number;
  bootedMs: number;
  completionMs: number;
}

export const BOOT_CALL_STEPS = [
  ['send → command', 'the gateway: its retry lookup on the state service, the publish'],
  [
    'command → accepted',
    "the boot-worker's fetch of the command, its reads of the namespace and the session's pods, its checks",
  ],
  [
    'accepted → booted',
    'the accepted fact acknowledged (no pod before it), the pod and then its Service created',
  ],
  [
    'booted → completion',
    "the state service's fetch of the fact and its transaction, after the one before it on the session's partition",
  ],
  [
    'completion → answer',
    "the state's commit, the gateway's fetch of the completion, drunc's reply",
  ],
] as const;

export interface StepSummary {
  step: string;
  p50Ms: number;
  p90Ms: number;
}

/**
 * Each step's median and p90 over the calls: the i-th call (by send time) is the i-th command (by
 * its record's time), as drunc's driver sends one call after the other. Calls and commands must
 * pair one to one — a retried call would leave two commands — or this refuses.
 */
export function bootCallSteps(
  calls: readonly CallWindow[],
  commands: readonly BootRecords[],
): StepSummary[] {
  if (calls.length === 0) throw new Error('bootCallSteps: no calls');
  if (calls.length !== commands.length) {
    throw new Error(
      `bootCallSteps: ${calls.length} calls but ${commands.length} boot commands on Kafka; they must pair one to one`,
    );
  }
  const byCall = [...calls].sort((a, b) => a.sentMs - b.sentMs);
  const byCommand = [...commands].sort((a, b) => a.commandMs - b.commandMs);
  const durations = byCall.map((call, i) => {
    const r = byCommand[i];
    return [
      r.commandMs - call.sentMs,
      r.acceptedMs - r.commandMs,
      r.bootedMs - r.acceptedMs,
      r.completionMs - r.bootedMs,
      call.answeredMs - r.completionMs,
    ];
  });
  return BOOT_CALL_STEPS.map(([step], s) => {
    const values = durations.map((d) => d[s]);
    return { step, p50Ms: percentile(values, 50), p90Ms: percentile(values, 90) };
  });
}
