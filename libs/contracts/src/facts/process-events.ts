/**
 * What the boot-worker did, on `kpm.process-events` (docs/design.md §5.1). Each fact names the
 * command it serves (`commandId`), so the state service can aggregate them into one completion.
 */
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  ValidateNested,
} from 'class-validator';
import { LIMITS } from '../commands/limits';
import { KILL_KINDS, ROLES, type KillKind, type Role } from '../event-types';
import { IsSeconds, IsStringMap, IsTreeId, IsUuidStages } from '../validation/rules';
import { ProcessInstance } from './process-instance';

/** Facts about a command start with its id (the command's CloudEvent id). */
abstract class CommandFact {
  @IsString()
  @IsNotEmpty()
  commandId!: string;
}

/** A process of an accepted boot, with the uuid the boot-worker settled on. */
export class AcceptedProcess {
  @IsUUID('all', { message: 'must be a UUID' })
  uuid!: string;

  @IsString()
  name!: string;

  @IsOptional()
  @IsTreeId()
  treeId?: string;

  @IsIn(ROLES)
  role!: Role;
}

/** The boot passed every check; these processes will be booted (or fail individually). */
export class BootAccepted extends CommandFact {
  @IsString()
  session!: string;

  @IsString()
  user!: string;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => AcceptedProcess)
  processes!: AcceptedProcess[];
}

/** One process's pod is running (statusCode RUNNING). */
export class ProcessBooted extends CommandFact {
  @IsDefined({ message: 'is required' })
  @ValidateNested()
  @Type(() => ProcessInstance)
  process!: ProcessInstance;
}

export class BootError {
  /** Machine-readable, e.g. `PodCreateFailed`, `NodeNotReady`, `PodReadyTimeout`. */
  @IsString()
  @IsNotEmpty()
  code!: string;

  @IsString()
  message!: string;
}

/** One process of an accepted boot could not be started. */
export class ProcessBootFailed extends CommandFact {
  @IsUUID('all', { message: 'must be a UUID' })
  uuid!: string;

  @IsString()
  name!: string;

  @IsString()
  session!: string;

  @IsDefined({ message: 'is required' })
  @ValidateNested()
  @Type(() => BootError)
  error!: BootError;
}

/** A kill, terminate or restart resolved to these uuids, to be killed stage by stage. */
export class KillAccepted extends CommandFact {
  @IsIn(KILL_KINDS)
  kind!: KillKind;

  @IsOptional()
  @IsString()
  session?: string;

  /** drunc's shutdown order; empty stages are omitted (see `shutdownStages`). */
  @IsUuidStages()
  stages!: string[][];

  /**
   * The pod each staged uuid had in the cluster when the kill was accepted, by uuid: the pod the
   * kill deletes and waits for. A pod whose end is already recorded — even for a process flushed
   * since — is not waited for again. Absent in facts of older boot-workers: the state service
   * then aims at the pod its own history says is current.
   */
  @IsOptional()
  @IsStringMap('isPodUidMap')
  podUids?: Record<string, string>;

  @IsSeconds(LIMITS.maxGracePeriodSeconds)
  gracePeriodSeconds!: number;

  /** The kill completes `timed_out` at `timeoutSeconds` after its acceptance… */
  @IsSeconds(LIMITS.maxTimeoutSeconds)
  timeoutSeconds!: number;

  /**
   * …or, when this is given, only once none of its processes has ended for this long (and not
   * before `timeoutSeconds`): a loaded cluster that keeps deleting is not cut off. The
   * boot-worker gives it unless the command set its own `timeoutSeconds`, a hard bound.
   */
  @IsOptional()
  @IsSeconds(LIMITS.maxTimeoutSeconds)
  progressTimeoutSeconds?: number;
}

/** The tail of one process's log, answering a logs command. */
export class LogsFetched extends CommandFact {
  @IsUUID('all', { message: 'must be a UUID' })
  uuid!: string;

  @IsArray()
  @IsString({ each: true })
  lines!: string[];
}

/** A reason a command was refused, naming the field. */
export class FieldErrorDetail {
  @IsString()
  path!: string;

  @IsString()
  message!: string;
}

/** The command was refused before anything ran; `errors` name the fields and the reasons. */
export class CommandRejected extends CommandFact {
  /** The command's CloudEvent type as received, even an unknown one. */
  @IsString()
  commandType!: string;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => FieldErrorDetail)
  errors!: FieldErrorDetail[];
}
