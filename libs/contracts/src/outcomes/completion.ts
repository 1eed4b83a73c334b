/**
 * The single completion of a command, on `kpm.completions` (docs/design.md §5.3): exactly one per
 * command id, also across restarts of any service, so a client can wait for it by id.
 */
import { Type } from 'class-transformer';
import {
  IsArray,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Min,
  ValidateNested,
} from 'class-validator';
import { COMMAND_STATUSES, type CommandStatus } from '../event-types';
import { AutomaticAction } from '../facts/automatic-action';
import { ProcessInstance } from '../facts/process-instance';
import { IsTimestamp } from '../validation/rules';

/** An error of a completion; `path` when it concerns a field of the command. */
export class CompletionError {
  @IsOptional()
  @IsString()
  path?: string;

  @IsString()
  message!: string;
}

/** The log lines of one process, answering a logs command. */
export class ProcessLogs {
  @IsUUID('all', { message: 'must be a UUID' })
  uuid!: string;

  @IsArray()
  @IsString({ each: true })
  lines!: string[];
}

export class CommandCompleted {
  @IsString()
  @IsNotEmpty()
  commandId!: string;

  /** The command's CloudEvent type, e.g. `daq.kpm.command.boot.v1`. */
  @IsString()
  commandType!: string;

  @IsString()
  session!: string;

  @IsIn(COMMAND_STATUSES)
  status!: CommandStatus;

  /** The processes the command concerned, as the state service knows them at completion. */
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ProcessInstance)
  processes!: ProcessInstance[];

  /** Targeted uuids without a termination when the command timed out. */
  @IsOptional()
  @IsArray()
  @IsUUID('all', { each: true, message: 'each pending uuid must be a UUID' })
  pending?: string[];

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => CompletionError)
  errors?: CompletionError[];

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ProcessLogs)
  logs?: ProcessLogs[];

  @IsOptional()
  @IsTimestamp()
  acceptedAt?: string;

  @IsTimestamp()
  completedAt!: string;

  /**
   * A command the state service sent on its own under a process's exit policy: why (which end,
   * which rule, attempt n of m). Absent for every command a user sent.
   */
  @IsOptional()
  @ValidateNested()
  @Type(() => AutomaticAction)
  automatic?: AutomaticAction;

  @IsInt()
  @Min(0)
  durationMs!: number;

  /** ps: more processes follow; send the same ps with this `cursor` for the next page. */
  @IsOptional()
  @IsString()
  nextCursor?: string;

  /**
   * Processes left out of `processes` so the record stays under the topic's limit (a boot,
   * kill or flush of thousands of large specs); ps pages instead (`nextCursor`).
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  processesOmitted?: number;
}
