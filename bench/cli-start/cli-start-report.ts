/** The rows of `bench:cli`'s table: per variant and command, each step's median and range. */
import { summarize } from '../e2e/stats';

export interface CliStartSample {
  variant: string;
  command: string;
  startToCommandMs: number;
  completionToExitMs: number;
  /** The CLI's whole time minus accepted → completion: what the goal bounds (≤ 300 ms). */
  beyondCompletionMs: number;
}

/** "764 (702–981)": the median (the lower middle of an even count) and the range. */
export function medianAndRange(values: readonly number[]): string {
  const { p50, min, max } = summarize(values);
  return `${Math.round(p50)} (${Math.round(min)}–${Math.round(max)})`;
}

export function cliStartRows(samples: readonly CliStartSample[]): string[][] {
  const groups = new Map<string, CliStartSample[]>();
  for (const s of samples) {
    const key = `${s.variant}\u0000${s.command}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  return [...groups.values()].map((group) => [
    group[0].variant,
    group[0].command,
    medianAndRange(group.map((s) => s.startToCommandMs)),
    medianAndRange(group.map((s) => s.completionToExitMs)),
    medianAndRange(group.map((s) => s.beyondCompletionMs)),
  ]);
}
