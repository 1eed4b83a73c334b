/**
 * What kpm does when a process ends that nobody asked to end (docs/design.md §4 "Exit policy"):
 * rules matched in order on the end's exit code, reason and the process's role, each with an
 * action. Opt-in, per process (`ProcessSpec.exitPolicy`) or per boot (`BootCommand.exitPolicy`,
 * the default of its processes). The boot-worker stores the policy in the process's spec, so a
 * restart keeps it; the state service decides (apps/state/src/domain/exit-decision.ts).
 */
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { ROLES, type Role } from '../event-types';
import type { FieldError } from '../validation/validate';

/**
 * - `Ignore`: the end is expected: recorded, but no ERS issue and no alert;
 * - `Restart`: the same uuid again, as a `restart` does, within the policy's budget and backoff;
 * - `FailSession`: the session is terminated in drunc's order;
 * - `Count`: recorded as without a policy (drunc's "has died"), what an unmatched end gets.
 */
export const EXIT_ACTIONS = ['Ignore', 'Restart', 'FailSession', 'Count'] as const;
export type ExitAction = (typeof EXIT_ACTIONS)[number];

export const EXIT_CODE_OPERATORS = ['In', 'NotIn'] as const;

/** Exit codes a process can end with: 0–255, or -1 when it never produced one. */
export const MIN_EXIT_CODE = -1;
export const MAX_EXIT_CODE = 255;

export const EXIT_POLICY_LIMITS = {
  maxRules: 32,
  maxValues: 64,
  /** Every exit code there is (-1 to 255): a longer list repeats one. */
  maxExitCodes: 257,
  maxRestarts: 100,
  /** One day: a budget over a longer window is no budget. */
  maxWindowSeconds: 86400,
  maxBackoffSeconds: 3600,
} as const;

/** An end's exit code in (`In`) or outside (`NotIn`) `values`. */
export class ExitCodeMatch {
  @IsIn(EXIT_CODE_OPERATORS, { message: 'must be In or NotIn' })
  operator!: (typeof EXIT_CODE_OPERATORS)[number];

  @IsArray()
  @ArrayMinSize(1, { message: 'must list at least one exit code' })
  @ArrayMaxSize(EXIT_POLICY_LIMITS.maxExitCodes)
  @IsInt({ each: true, message: 'each exit code must be a whole number' })
  @Min(MIN_EXIT_CODE, { each: true, message: `each exit code must be at least ${MIN_EXIT_CODE}` })
  @Max(MAX_EXIT_CODE, { each: true, message: `each exit code must be at most ${MAX_EXIT_CODE}` })
  values!: number[];
}

/** One rule: every condition given must hold (none given: every end); the first match acts. */
export class ExitRule {
  @IsIn(EXIT_ACTIONS, { message: `must be one of ${EXIT_ACTIONS.join(', ')}` })
  action!: ExitAction;

  @IsOptional()
  @ValidateNested()
  @Type(() => ExitCodeMatch)
  exitCodes?: ExitCodeMatch;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'must list at least one reason' })
  @ArrayMaxSize(EXIT_POLICY_LIMITS.maxValues)
  @Matches(/^[A-Za-z][A-Za-z0-9]{0,62}$/, {
    each: true,
    message: 'each reason must be a reason word as the termination gives it, e.g. OOMKilled',
  })
  reasons?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'must list at least one role' })
  @ArrayMaxSize(ROLES.length)
  @IsIn(ROLES, { each: true, message: `each role must be one of ${ROLES.join(', ')}` })
  roles?: Role[];
}

export class ExitPolicy {
  @IsDefined({ message: 'is required' })
  @IsArray()
  @ArrayMinSize(1, { message: 'must list at least one rule' })
  @ArrayMaxSize(EXIT_POLICY_LIMITS.maxRules)
  @ValidateNested({ each: true })
  @Type(() => ExitRule)
  rules!: ExitRule[];

  /** Automatic restarts allowed within `windowSeconds`; one more end is left DEAD. */
  @IsOptional()
  @IsInt({ message: 'must be a whole number' })
  @Min(0, { message: 'must not be negative' })
  @Max(EXIT_POLICY_LIMITS.maxRestarts)
  maxRestarts?: number;

  @IsOptional()
  @IsInt({ message: 'must be a whole number of seconds' })
  @Min(1, { message: 'must be at least 1 second' })
  @Max(EXIT_POLICY_LIMITS.maxWindowSeconds)
  windowSeconds?: number;

  /** The wait before the first automatic restart; each further one in the window doubles it… */
  @IsOptional()
  @IsInt({ message: 'must be a whole number of seconds' })
  @Min(0, { message: 'must not be negative' })
  @Max(EXIT_POLICY_LIMITS.maxBackoffSeconds)
  backoffSeconds?: number;

  /** …up to this. */
  @IsOptional()
  @IsInt({ message: 'must be a whole number of seconds' })
  @Min(0, { message: 'must not be negative' })
  @Max(EXIT_POLICY_LIMITS.maxBackoffSeconds)
  maxBackoffSeconds?: number;

  /** A rule no end can reach is a mistake: refused, naming it and why. */
  static crossCheck(policy: ExitPolicy): FieldError[] {
    const errors: FieldError[] = [];
    if (!Array.isArray(policy.rules)) return errors;
    let catchAll: number | undefined;
    policy.rules.forEach((rule: Partial<ExitRule> | null, i) => {
      if (!rule || typeof rule !== 'object') return;
      const at = `rules[${i}]`;
      if (catchAll !== undefined) {
        errors.push({
          path: at,
          message: `can never match: rules[${catchAll}] before it matches every end`,
        });
        return;
      }
      const never = neverMatches(rule);
      if (never) errors.push({ path: `${at}.${never.path}`, message: never.message });
      else if (matchesEverything(rule)) catchAll = i;
    });
    errors.push(...budgetErrors(policy));
    return errors;
  }
}

/** The defaults of an ExitPolicy's budget and backoff (docs/design.md §4 "Exit policy"). */
export const EXIT_POLICY_DEFAULTS = {
  maxRestarts: 3,
  windowSeconds: 600,
  backoffSeconds: 10,
  maxBackoffSeconds: 300,
} as const;

/** A backoff cap below the backoff, a window the backoff outlasts, a budget of no restart. */
function budgetErrors(policy: ExitPolicy): FieldError[] {
  const errors: FieldError[] = [];
  const given = typeof policy.backoffSeconds === 'number';
  const backoff = given ? policy.backoffSeconds! : EXIT_POLICY_DEFAULTS.backoffSeconds;
  const named = `backoffSeconds (${backoff}${given ? '' : ', its default'})`;
  if (typeof policy.maxBackoffSeconds === 'number' && policy.maxBackoffSeconds < backoff)
    errors.push({ path: 'maxBackoffSeconds', message: `must be at least ${named}` });
  if (!policy.rules.some((r) => r?.action === 'Restart')) return errors;
  if (policy.maxRestarts === 0)
    errors.push({
      path: 'maxRestarts',
      message: 'is 0, so a Restart rule could never restart: give a budget or another action',
    });
  const window = policy.windowSeconds;
  if (typeof window === 'number' && window >= 1 && window <= backoff)
    errors.push({
      path: 'windowSeconds',
      message: `must be longer than ${named}: the next end always comes after the window, so the budget never fills`,
    });
  return errors;
}

/** The condition of `rule` that no exit code can satisfy, if one is. */
function neverMatches(rule: Partial<ExitRule>): FieldError | undefined {
  const codes = rule.exitCodes;
  if (codes?.operator !== 'NotIn' || !Array.isArray(codes.values)) return undefined;
  const excluded = new Set(codes.values);
  for (let code = MIN_EXIT_CODE; code <= MAX_EXIT_CODE; code++)
    if (!excluded.has(code)) return undefined;
  return {
    path: 'exitCodes.values',
    message: `can never match: NotIn lists every exit code from ${MIN_EXIT_CODE} to ${MAX_EXIT_CODE}`,
  };
}

/** Whether every end matches `rule`: each condition it gives admits every code or role. */
function matchesEverything(rule: Partial<ExitRule>): boolean {
  if (rule.reasons !== undefined) return false; // reasons are open-ended words
  const codes = rule.exitCodes;
  if (codes !== undefined && !(codes.operator === 'In' && coversEveryCode(codes.values)))
    return false;
  return rule.roles === undefined || ROLES.every((role) => rule.roles!.includes(role));
}

function coversEveryCode(values: unknown): boolean {
  if (!Array.isArray(values)) return false;
  const listed = new Set(values);
  for (let code = MIN_EXIT_CODE; code <= MAX_EXIT_CODE; code++) if (!listed.has(code)) return false;
  return true;
}
