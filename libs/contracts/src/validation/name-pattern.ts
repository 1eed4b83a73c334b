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
import { RE2JS } from 're2js';

export const MAX_REGEX_LENGTH = 256;

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
  try {
    const compiled = RE2JS.compile(pattern);
    return { ok: true, pattern: { test: (name) => compiled.test(name) } };
  } catch (error) {
    const reason = `is not valid RE2 syntax (no backreferences or lookaround): ${(error as Error).message}`;
    return { ok: false, reason };
  }
}

/** Why a pattern is refused, or `undefined` when it is accepted. */
export function namePatternError(pattern: string): string | undefined {
  const compiled = compileNamePattern(pattern);
  return compiled.ok ? undefined : compiled.reason;
}
