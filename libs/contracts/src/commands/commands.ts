/**
 * The `data` of each command on `kpm.commands` (docs/design.md §4). The CloudEvent id is the
 * command id; the subject is the session.
 */
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsDefined,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsDnsLabel, IsSeconds, IsUserName } from '../validation/rules';
import type { FieldError } from '../validation/validate';
import { AutomaticAction } from '../facts/automatic-action';
import { ExitPolicy } from './exit-policy';
import { LIMITS } from './limits';
import { ProcessQuery } from './process-query';
import { ProcessSpec } from './process-spec';

export class BootCommand {
  /** Becomes the namespace. */
  @IsDnsLabel()
  session!: string;

  @IsUserName()
  user!: string;

  @IsArray()
  @ArrayMinSize(1, { message: 'must list at least one process' })
  @ArrayMaxSize(LIMITS.maxProcessesPerBoot, {
    message: `must list at most ${LIMITS.maxProcessesPerBoot} processes`,
  })
  @ValidateNested({ each: true })
  @Type(() => ProcessSpec)
  processes!: ProcessSpec[];

  /**
   * All or nothing: before the first pod, every process must be able to land (its allowed hosts
   * Ready and schedulable, or some node for a process that names none); else the whole boot is
   * refused, one error per process that cannot, and nothing is created (docs/design.md §6.3).
   * Default: each process that cannot land fails alone and the others boot, as drunc does.
   */
  @IsOptional()
  @IsBoolean({ message: 'must be true or false' })
  allOrNothing?: boolean;

  /**
   * The exit policy of every process of the boot that gives none of its own (exit-policy.ts,
   * docs/design.md §4 "Exit policy"). Default: none, every end is counted as drunc does.
   */
  @IsOptional()
  @ValidateNested()
  @Type(() => ExitPolicy)
  exitPolicy?: ExitPolicy;

  /** Names become pod names in one namespace, so a boot may not repeat one. */
  static crossCheck(boot: BootCommand): FieldError[] {
    if (!Array.isArray(boot.processes)) return [];
    const first = new Map<string, number>();
    const errors: FieldError[] = [];
    boot.processes.forEach((p: Partial<ProcessSpec> | null, i) => {
      const name = p?.name;
      if (typeof name !== 'string') return;
      const earlier = first.get(name);
      if (earlier === undefined) first.set(name, i);
      else
        errors.push({
          path: `processes[${i}].name`,
          message: `duplicate name "${name}" (also processes[${earlier}])`,
        });
    });
    return errors;
  }
}

/** kill and terminate stop pods in drunc's stages, with the same optional timing. */
function IsGracePeriodSeconds(): PropertyDecorator {
  return optionalSeconds(LIMITS.maxGracePeriodSeconds);
}

function IsKillTimeoutSeconds(): PropertyDecorator {
  return optionalSeconds(LIMITS.maxTimeoutSeconds);
}

function optionalSeconds(max: number): PropertyDecorator {
  return (target, key) => {
    IsSeconds(max)(target, key);
    IsOptional()(target, key);
  };
}

/** Commands that take a query share this shape. */
abstract class QueryCommand {
  @IsDefined({ message: 'is required' })
  @ValidateNested()
  @Type(() => ProcessQuery)
  query!: ProcessQuery;
}

/**
 * Commands that act on processes carry the acting user, like boot and terminate: each process
 * they select must belong to that user unless the user is an operator (command-ownership.ts).
 */
abstract class ActingQueryCommand extends QueryCommand {
  @IsUserName()
  user!: string;
}

/** Kill the processes the query selects, in drunc's shutdown order. */
export class KillCommand extends ActingQueryCommand {
  @IsGracePeriodSeconds()
  gracePeriodSeconds?: number;

  @IsKillTimeoutSeconds()
  timeoutSeconds?: number;

  /**
   * The caller must have its answer within this many seconds (a gRPC deadline: drunc gives
   * kill and terminate 60 s): the stages' grace, escalation and wait after a forced kill are
   * planned to end inside it, and `timeoutSeconds` defaults to it (docs/design.md §6.4).
   */
  @IsKillTimeoutSeconds()
  deadlineSeconds?: number;
}

/** Kill every process of the session, then delete its namespace (unless `keepNamespace`). */
export class TerminateCommand {
  @IsDnsLabel()
  session!: string;

  @IsUserName()
  user!: string;

  @IsGracePeriodSeconds()
  gracePeriodSeconds?: number;

  @IsKillTimeoutSeconds()
  timeoutSeconds?: number;

  /**
   * The caller must have its answer within this many seconds (a gRPC deadline: drunc gives
   * kill and terminate 60 s): the stages' grace, escalation and wait after a forced kill are
   * planned to end inside it, and `timeoutSeconds` defaults to it (docs/design.md §6.4).
   */
  @IsKillTimeoutSeconds()
  deadlineSeconds?: number;

  @IsOptional()
  @IsBoolean()
  keepNamespace?: boolean;

  /** Sent by the state service for a `FailSession` rule: the end it answers (informative). */
  @IsOptional()
  @ValidateNested()
  @Type(() => AutomaticAction)
  automatic?: AutomaticAction;
}

/**
 * Every process the query selects (one or more, as drunc restarts every uuid its query matches):
 * killed in drunc's stages, each booted again with the same uuid and spec in drunc's boot order.
 */
export class RestartCommand extends ActingQueryCommand {
  /** Sent by the state service for a `Restart` rule: the end it answers (informative). */
  @IsOptional()
  @ValidateNested()
  @Type(() => AutomaticAction)
  automatic?: AutomaticAction;
}

/** Forget DEAD processes (state only). */
export class FlushCommand extends ActingQueryCommand {}

/**
 * Where a ps page starts: after the process `<session>/<name>/<uuid>`, the sort key (session,
 * name, uuid) of the last process of the previous page, as its completion's `nextCursor` says.
 */
// A name may hold "/": the session ends at the first one, the uuid is the last 36 characters.
// eslint-disable-next-line no-control-regex -- a name has no control characters
const PS_CURSOR = /^[a-z0-9-]{1,63}\/[^\s\x00-\x1f\x7f]{1,253}\/[0-9a-f-]{36}$/u;

/**
 * List processes, answered by the state service from its table in pages of at most `limit`
 * (default 1000), sorted by session, name and uuid; a completion with `nextCursor` has more.
 */
export class PsCommand extends QueryCommand {
  @IsOptional()
  @IsInt({ message: 'must be a whole number' })
  @Min(1, { message: 'must be at least 1' })
  @Max(LIMITS.maxPsLimit, { message: `must be at most ${LIMITS.maxPsLimit}` })
  limit?: number;

  @IsOptional()
  @Matches(PS_CURSOR, {
    message: 'must be the nextCursor of a ps completion: <session>/<name>/<uuid>',
  })
  cursor?: string;
}

/** The last `tailLines` lines of one process's log. */
export class LogsCommand extends ActingQueryCommand {
  @IsOptional()
  @IsInt({ message: 'must be a whole number of lines' })
  @Min(1, { message: 'must be at least 1' })
  @Max(LIMITS.maxTailLines, { message: `must be at most ${LIMITS.maxTailLines}` })
  tailLines?: number = LIMITS.defaultTailLines;
}
