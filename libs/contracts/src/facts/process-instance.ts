/**
 * drunc's ProcessInstance plus the Kubernetes facts kpm knows about the pod (docs/design.md §5.5).
 * The state service keeps one per uuid on `kpm.processes`; completions and `ps` answers carry them.
 */
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  ValidateNested,
} from 'class-validator';
import { PROCESS_STATUSES, ROLES, type ProcessStatus, type Role } from '../event-types';
import { ExitPolicy } from '../commands/exit-policy';
import { ExecutableAndArguments, ProcessRestriction } from '../commands/process-spec';
import { AutomaticRecord } from './automatic-action';
import {
  IsLogFilePath,
  IsSafeAbsolutePath,
  IsStringMap,
  IsTimestamp,
  IsTreeId,
} from '../validation/rules';

export class ProcessMetadata {
  @IsString()
  user!: string;

  @IsString()
  session!: string;

  @IsString()
  name!: string;

  @IsOptional()
  @IsTreeId()
  treeId?: string;

  /** The node the pod runs on, once scheduled. */
  @IsOptional()
  @IsString()
  hostname?: string;
}

export class ProcessDescription {
  @IsDefined({ message: 'is required' })
  @ValidateNested()
  @Type(() => ProcessMetadata)
  metadata!: ProcessMetadata;

  @IsStringMap('isEnvMap')
  env!: Record<string, string>;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ExecutableAndArguments)
  executableAndArguments!: ExecutableAndArguments[];

  @IsOptional()
  @IsSafeAbsolutePath()
  executionDirectory?: string;

  @IsOptional()
  @IsSafeAbsolutePath()
  logsPath?: string;

  /** drunc's `process_logs_path`: the file the process's output is appended to. */
  @IsOptional()
  @IsLogFilePath()
  logFile?: string;
}

export class ProcessInstance {
  @IsUUID('all', { message: 'must be a UUID' })
  uuid!: string;

  @IsDefined({ message: 'is required' })
  @ValidateNested()
  @Type(() => ProcessDescription)
  description!: ProcessDescription;

  @IsDefined({ message: 'is required' })
  @ValidateNested()
  @Type(() => ProcessRestriction)
  restriction!: ProcessRestriction;

  @IsIn(PROCESS_STATUSES)
  statusCode!: ProcessStatus;

  /** The exit code once DEAD; absent while RUNNING. */
  @IsOptional()
  @IsInt()
  returnCode?: number;

  /** Why it ended (`Completed`, `Error`, `OOMKilled`, `PodDeleted`, …). */
  @IsOptional()
  @IsString()
  reason?: string;

  @IsString()
  namespace!: string;

  @IsString()
  podName!: string;

  @IsString()
  podUid!: string;

  @IsOptional()
  @IsString()
  nodeName?: string;

  @IsIn(ROLES)
  role!: Role;

  @IsTimestamp()
  bootedAt!: string;

  @IsOptional()
  @IsTimestamp()
  terminatedAt?: string;

  /** The process's exit policy, as its spec gives it (the boot's default filled in). */
  @IsOptional()
  @ValidateNested()
  @Type(() => ExitPolicy)
  exitPolicy?: ExitPolicy;

  /** What the state service decided on its ends under that policy, and how often it restarted it. */
  @IsOptional()
  @ValidateNested()
  @Type(() => AutomaticRecord)
  automatic?: AutomaticRecord;
}
