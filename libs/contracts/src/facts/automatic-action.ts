/**
 * What the state service decided, on its own, about a process's end under its exit policy
 * (docs/design.md §4 "Exit policy"): on the process's row (`ProcessInstance.automatic`), on the
 * command it issued for it (`restart` or `terminate`), and on that command's completion.
 */
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Min,
  ValidateNested,
} from 'class-validator';
import { EXIT_ACTIONS, EXIT_POLICY_LIMITS, type ExitAction } from '../commands/exit-policy';
import { IsTimestamp } from '../validation/rules';

/**
 * - `ignored`: an `Ignore` rule matched: no ERS issue;
 * - `counted`: a `Count` rule matched (or none did): drunc's "has died";
 * - `scheduled`: a restart waits for its backoff (`dueAt`);
 * - `issued`: the restart command (`commandId`) was sent;
 * - `cancelled`: a user's kill, terminate, restart or flush came first (`cancelledBy`);
 * - `exhausted`: the budget was spent: the process stays DEAD;
 * - `session-failed`: the terminate of the session (`commandId`) was sent.
 */
export const AUTOMATIC_OUTCOMES = [
  'ignored',
  'counted',
  'scheduled',
  'issued',
  'cancelled',
  'exhausted',
  'session-failed',
] as const;
export type AutomaticOutcome = (typeof AUTOMATIC_OUTCOMES)[number];

export class AutomaticAction {
  /** The service that decided (`state`). */
  @IsString()
  decidedBy!: string;

  @IsTimestamp()
  decidedAt!: string;

  @IsUUID('all', { message: 'must be a UUID' })
  uuid!: string;

  /** The pod whose end was decided on. */
  @IsString()
  podUid!: string;

  @IsInt()
  exitCode!: number;

  @IsString()
  reason!: string;

  /** The rule that matched (its index in the policy's `rules`); absent: none did. */
  @IsOptional()
  @IsInt()
  @Min(0)
  rule?: number;

  @IsIn(EXIT_ACTIONS)
  action!: ExitAction;

  @IsIn(AUTOMATIC_OUTCOMES)
  outcome!: AutomaticOutcome;

  /** A restart: this is attempt `attempt` of `of` within the policy's window. */
  @IsOptional()
  @IsInt()
  @Min(1)
  attempt?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  of?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  windowSeconds?: number;

  /** A scheduled restart is due then. */
  @IsOptional()
  @IsTimestamp()
  dueAt?: string;

  /** The command sent (or to be sent) for it: a deterministic id, so a repeat is recognised. */
  @IsOptional()
  @IsString()
  commandId?: string;

  /** The user command that cancelled a scheduled restart. */
  @IsOptional()
  @IsString()
  cancelledBy?: string;

  /** One line an operator reads, e.g. "exit 3 (Error) matched rules[0]: restart 1 of 3 in 10 s". */
  @IsString()
  message!: string;
}

/** A process's automatic history: on its row, carried from pod to pod of the uuid. */
export class AutomaticRecord {
  /** Automatic restarts sent for this process since it was booted: `ps` shows it. */
  @IsInt()
  @Min(0)
  restarts!: number;

  /** When the restarts inside the policy's window were decided: its budget. */
  @IsArray()
  @ArrayMaxSize(EXIT_POLICY_LIMITS.maxRestarts)
  @IsTimestamp({ each: true })
  recentRestarts!: string[];

  @IsOptional()
  @ValidateNested()
  @Type(() => AutomaticAction)
  last?: AutomaticAction;

  /**
   * The last action that sent a command (`issued`, `session-failed`): what that command's
   * completion quotes, though a newer end may have been decided since (`last`).
   */
  @IsOptional()
  @ValidateNested()
  @Type(() => AutomaticAction)
  lastSent?: AutomaticAction;
}
