/**
 * Retry or new attempt? A drunc client sends no idempotency key, and a BootRequest of one run is
 * byte for byte the one of the next, so the gateway decides from kpm's state (docs/design.md
 * "drunc gateway", the retry rule):
 *
 * - a command still open is the same call sent again: wait for it;
 * - a completed command answers an identical request while it is still true — within the retry
 *   window, and while nothing it settled has changed since: the process a boot (or restart)
 *   started still runs; nothing a kill or terminate selects runs again; nothing new to flush;
 * - otherwise the identical request is a new attempt, under the next attempt's id.
 *
 * Pure: the caller looks the command up and says what is current.
 */
import type { CommandCompleted } from '@kpm/contracts';

export type CommandLookup =
  | { state: 'unknown' }
  | { state: 'open'; progress?: string }
  | { state: 'completed'; completion: CommandCompleted };

export type Verdict = 'retry' | 'settled' | 'unused';

export interface RetryFacts {
  nowMs: number;
  windowMs: number;
  /** Has kpm's state moved on from what this completion left (per rpc, see above)? */
  changedSince: (completion: CommandCompleted) => Promise<boolean>;
}

export async function verdictOf(lookup: CommandLookup, facts: RetryFacts): Promise<Verdict> {
  if (lookup.state === 'unknown') return 'unused';
  if (lookup.state === 'open') return 'retry';
  const completedAt = Date.parse(lookup.completion.completedAt);
  if (!(facts.nowMs - completedAt <= facts.windowMs)) return 'settled';
  return (await facts.changedSince(lookup.completion)) ? 'settled' : 'retry';
}

/** The windows a call looks in: the one before (a retry just across the boundary) and its own. */
export function windowsOf(nowMs: number, windowMs: number): [number, number] {
  const current = Math.floor(nowMs / windowMs);
  return [current - 1, current];
}

export type Choice =
  | { kind: 'retry'; commandId: string; lookup: Exclude<CommandLookup, { state: 'unknown' }> }
  | { kind: 'fresh'; commandId: string };

/** Attempts tried per window before giving up on finding a free id (a loop of identical calls). */
export const MAX_ATTEMPTS = 64;

/**
 * Walks the previous window's attempts, then the current one's, and returns the first command
 * that answers this call, else the current window's first unused id. Most calls are first calls:
 * both windows' first ids are unknown. Those two look-ups are asked side by side, so such a call
 * waits for one round trip to the state service rather than two; the walk itself is unchanged.
 */
export async function chooseCommand(
  idOf: (window: number, attempt: number) => string,
  lookupOne: (commandId: string) => Promise<CommandLookup>,
  facts: RetryFacts,
): Promise<Choice> {
  const [previous, current] = windowsOf(facts.nowMs, facts.windowMs);
  const asked = new Map<string, Promise<CommandLookup>>();
  const lookup = (commandId: string): Promise<CommandLookup> => {
    let answer = asked.get(commandId);
    if (!answer) {
      answer = lookupOne(commandId);
      asked.set(commandId, answer);
    }
    return answer;
  };
  // Asked ahead; a walk that returns before reading it leaves its failure unobserved, not thrown.
  lookup(idOf(current, 0)).catch(() => undefined);
  for (const window of [previous, current]) {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const commandId = idOf(window, attempt);
      const found = await lookup(commandId);
      const verdict = await verdictOf(found, facts);
      if (verdict === 'retry') return { kind: 'retry', commandId, lookup: found as never };
      if (verdict === 'unused') {
        if (window === current) return { kind: 'fresh', commandId };
        break;
      }
    }
  }
  return { kind: 'fresh', commandId: idOf(current, MAX_ATTEMPTS) };
}
