/** The rows of `bench:cli`'s table: per variant and command, each step's median and range. */

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
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  return `${Math.round(median)} (${Math.round(sorted[0])}–${Math.round(sorted.at(-1)!)})`;
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
