/**
 * Process-name patterns (ProcessQuery `names`, the state API's `?name=`): regular expressions
 * in RE2 syntax, run on `re2js`, a linear-time engine (docs/design.md §4 "Name patterns").
 *
 * JavaScript's own engine backtracks, so one pattern such as `'[^!]*'.repeat(10) + '!'` can
 * take hours on a 63-character name and stall a partition for every session on it; no
 * heuristic check over the pattern's shape catches every such case. RE2 matches in time linear
 * in the name's length whatever the pattern, and refuses what cannot be matched that way
 * (backreferences, lookaround). Patterns are also bounded in length, so compiling one is cheap.
 */
import type { RE2JS } from 're2js';

let engine: typeof RE2JS | undefined;

/** re2js on first use: loading it takes about 50 ms that a CLI run without patterns need not pay. */
function re2(): typeof RE2JS {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  engine ??= (require('re2js') as typeof import('re2js')).RE2JS;
  return engine;
}

export const MAX_REGEX_LENGTH = 256;
/**
 * RE2 allows counts up to 1000, but `{n}` copies its operand n times and compiling a thousand
 * copies takes a sizeable fraction of a second; kpm's names are at most 63 characters anyway.
 */
const MAX_REPEAT_COUNT = 100;
const REPEAT = /\{(\d+)(?:,(\d*))?\}/g;

/** A compiled pattern; `test` searches it anywhere in the name, like drunc's `re.search`. */
export interface NamePattern {
  test(name: string): boolean;
}

export type CompiledNamePattern =
  { ok: true; pattern: NamePattern } | { ok: false; reason: string };

/** Compiles `pattern` on the linear-time engine, or says why it is refused. */
export function compileNamePattern(pattern: string): CompiledNamePattern {
  if (pattern.length > MAX_REGEX_LENGTH) {
    const reason = `is ${pattern.length} characters long, at most ${MAX_REGEX_LENGTH} are allowed`;
    return { ok: false, reason };
  }
  const count = largestRepeatCount(pattern);
  if (count > MAX_REPEAT_COUNT) {
    const reason = `repeats {${count}} times, at most {${MAX_REPEAT_COUNT}} are allowed`;
    return { ok: false, reason };
  }
  try {
    const compiled = re2().compile(pattern);
    return { ok: true, pattern: { test: (name) => compiled.test(name) } };
  } catch (error) {
    const reason = `is not valid RE2 syntax (no backreferences or lookaround): ${(error as Error).message}`;
    return { ok: false, reason };
  }
}

/** The largest count of a `{n}`, `{n,}` or `{n,m}` in the pattern (0 if none). */
function largestRepeatCount(pattern: string): number {
  let largest = 0;
  for (const [, low, high] of pattern.matchAll(REPEAT)) {
    largest = Math.max(largest, Number(low), high ? Number(high) : 0);
  }
  return largest;
}

/** Why a pattern is refused, or `undefined` when it is accepted. */
export function namePatternError(pattern: string): string | undefined {
  const compiled = compileNamePattern(pattern);
  return compiled.ok ? undefined : compiled.reason;
}
