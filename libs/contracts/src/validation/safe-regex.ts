/**
 * A small, conservative safe-regex check for ProcessQuery `names`.
 *
 * Names are matched with JavaScript's backtracking engine inside the services, so one
 * catastrophic pattern in one command would stall a partition for every session on it. We
 * therefore reject, before running anything, the pattern shapes that can backtrack
 * exponentially:
 *
 * - star height above 1: a repeated group that itself contains a repetition, as in `(a+)+`,
 *   `(.*)*`, `(\w+\s?)*`, `(.*a){20}`. A repetition is any quantifier whose maximum is above one
 *   (`*`, `+`, `{n}` with n > 1, `{n,}`, `{n,m}` with m > 1); `?` and `{0,1}` do not count.
 * - a repeated group containing an alternation, as in `(a|ab)*`: overlapping alternatives
 *   backtrack exponentially even at star height 1.
 * - backreferences (`\1`, `\k<name>`): they make matching NP-hard and process names never need them.
 * - more than {@link MAX_REPETITIONS} repetitions in total, a cheap bound on polynomial blow-up.
 *
 * The check is deliberately stricter than necessary (it rejects some harmless patterns such as
 * `(ab?)*c`): a process-name selector rarely needs more than `^ru-` or `readout.*[0-9]`, and a
 * false rejection costs the operator one rewrite, whereas a false acceptance costs the cluster.
 */

export const MAX_REGEX_LENGTH = 256;
export const MAX_REPETITIONS = 25;

/** Why a pattern is refused, or `undefined` when it is accepted. */
export function unsafeRegexReason(pattern: string): string | undefined {
  if (pattern.length > MAX_REGEX_LENGTH) {
    return `is ${pattern.length} characters long, at most ${MAX_REGEX_LENGTH} are allowed`;
  }
  try {
    new RegExp(pattern);
  } catch (e) {
    return `does not compile: ${(e as Error).message}`;
  }
  return new Scanner(pattern).scan();
}

/** What one open group has seen so far. */
interface Group {
  /** Highest star height of anything inside the group. */
  height: number;
  alternation: boolean;
}

/** A single left-to-right pass keeping a stack of open groups; the regex already compiled. */
class Scanner {
  private i = 0;
  private repetitions = 0;
  private readonly stack: Group[] = [{ height: 0, alternation: false }];

  constructor(private readonly p: string) {}

  scan(): string | undefined {
    while (this.i < this.p.length) {
      const reason = this.step();
      if (reason) return reason;
    }
    return undefined;
  }

  private get top(): Group {
    return this.stack[this.stack.length - 1];
  }

  /** Consumes one atom (with its quantifier) or one structural character. */
  private step(): string | undefined {
    const c = this.p[this.i];
    if (c === '(') {
      this.i += this.groupPrefixLength();
      this.stack.push({ height: 0, alternation: false });
      return undefined;
    }
    if (c === ')') {
      this.i++;
      const inner = this.stack.pop() ?? { height: 0, alternation: false };
      const reason = this.quantified(inner.height, inner.alternation);
      // An alternation anywhere inside a group is inside any repetition of that group too.
      this.top.alternation ||= inner.alternation;
      return reason;
    }
    if (c === '|') {
      this.i++;
      this.top.alternation = true;
      return undefined;
    }
    if (c === '\\') {
      const next = this.p[this.i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && this.p[this.i + 2] === '<')) {
        return 'uses a backreference, which can backtrack catastrophically';
      }
      this.i += next === 'u' || next === 'x' || next === 'c' ? this.escapeLength(next) : 2;
      return this.quantified(0, false);
    }
    if (c === '[') {
      this.skipClass();
      return this.quantified(0, false);
    }
    this.i++;
    // Anchors and `^`/`$` take no quantifier in a compiled pattern; plain characters may.
    return this.quantified(0, false);
  }

  /**
   * Reads an optional quantifier after an atom whose own star height is `height` and records
   * the atom's height in the enclosing group.
   */
  private quantified(height: number, alternation: boolean): string | undefined {
    const max = this.readQuantifier();
    let atomHeight = height;
    if (max > 1) {
      this.repetitions++;
      if (this.repetitions > MAX_REPETITIONS) {
        return `has more than ${MAX_REPETITIONS} repetitions`;
      }
      atomHeight = height + 1;
      if (atomHeight > 1) {
        return 'nests a repetition inside a repetition (for example (a+)+), which can backtrack catastrophically';
      }
      if (alternation) {
        return 'repeats an alternation (for example (a|ab)*), which can backtrack catastrophically';
      }
    }
    this.top.height = Math.max(this.top.height, atomHeight);
    return undefined;
  }

  /** Consumes a quantifier if one follows and returns its maximum count (1 if none). */
  private readQuantifier(): number {
    const c = this.p[this.i];
    let max = 1;
    if (c === '*' || c === '+') {
      max = Infinity;
      this.i++;
    } else if (c === '?') {
      this.i++;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i));
      if (!m) return 1; // a literal `{`, as the non-unicode syntax allows
      max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
      this.i += m[0].length;
    } else {
      return 1;
    }
    if (this.p[this.i] === '?') this.i++; // lazy modifier: same backtracking risk
    return max;
  }

  /** Length of `(`, `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!` or `(?<name>`. */
  private groupPrefixLength(): number {
    const rest = this.p.slice(this.i);
    const m = /^\((\?(:|=|!|<=|<!|<[A-Za-z_$][\w$]*>))?/.exec(rest);
    return m ? m[0].length : 1;
  }

  private escapeLength(kind: string): number {
    const rest = this.p.slice(this.i);
    const m =
      kind === 'u'
        ? /^\\u(\{[0-9A-Fa-f]+\}|[0-9A-Fa-f]{4})?/.exec(rest)
        : kind === 'x'
          ? /^\\x([0-9A-Fa-f]{2})?/.exec(rest)
          : /^\\c[A-Za-z]?/.exec(rest);
    return m ? m[0].length : 2;
  }

  /** Skips a character class `[...]`, honouring escapes (in JavaScript `[]` is an empty class). */
  private skipClass(): void {
    this.i++;
    while (this.i < this.p.length && this.p[this.i] !== ']') {
      this.i += this.p[this.i] === '\\' ? 2 : 1;
    }
    this.i++;
  }
}
