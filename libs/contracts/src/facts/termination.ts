/**
 * A pod that ended, as the watcher saw it, on `kpm.terminations` (docs/design.md §5.2, §6.5). The
 * CloudEvent id derives from `podUid` (see `terminationEventId`): a restart reuses the process
 * uuid, never the pod uid, so a re-publish of the same end is recognisable.
 */
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, ValidateNested } from 'class-validator';
import {
  CONTAINER_TYPES,
  DETECTION_SOURCES,
  type ContainerType,
  type DetectionSource,
} from '../event-types';
import { IsTimestamp } from '../validation/rules';

/**
 * drunc's exit code of a process whose own exit code nobody saw: it never ran, waited for a fatal
 * reason, was deleted before it exited, or ended while nobody watched (docs/design.md §6.5). The
 * watcher's exit rules (termination-rules.ts) are the only place that decides it; the state
 * service uses it for a DEAD row that lost its code.
 */
export const NO_EXIT_CODE = -1;

/** The first thing that failed: a container (init before main) or the pod itself. */
export class TerminationFailure {
  @IsOptional()
  @IsString()
  containerName?: string;

  @IsOptional()
  @IsIn(CONTAINER_TYPES)
  containerType?: ContainerType;

  @IsOptional()
  @IsString()
  containerReason?: string;

  @IsOptional()
  @IsString()
  containerMessage?: string;

  @IsOptional()
  @IsString()
  podReason?: string;

  @IsOptional()
  @IsString()
  podMessage?: string;
}

export class ProcessTerminated {
  @IsUUID('all', { message: 'must be a UUID' })
  uuid!: string;

  @IsString()
  session!: string;

  @IsString()
  name!: string;

  @IsString()
  user!: string;

  @IsString()
  namespace!: string;

  @IsString()
  podName!: string;

  @IsString()
  podUid!: string;

  /** -1 when the process never produced one (fatal waiting reason, deleted before start, vanished). */
  @IsInt()
  exitCode!: number;

  /** `Completed`, `Error`, `OOMKilled`, `ErrImagePull`, `DeletedBeforeStart`, `PodDeleted`, `NodeLost`, … */
  @IsString()
  reason!: string;

  @IsOptional()
  @IsInt()
  signal?: number;

  /** The pod phase when it was seen ending (`Succeeded`, `Failed`, `Running`, `Pending`, `Unknown`). */
  @IsString()
  phase!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => TerminationFailure)
  failure?: TerminationFailure;

  @IsOptional()
  @IsTimestamp()
  startedAt?: string;

  @IsOptional()
  @IsTimestamp()
  finishedAt?: string;

  /**
   * When the pod's deletion was requested, if it was being deleted as it ended (a kill,
   * terminate or restart deletes its pods): the end was asked for. Absent: it ended on its own.
   */
  @IsOptional()
  @IsTimestamp()
  deletionRequestedAt?: string;

  @IsTimestamp()
  observedAt!: string;

  @IsIn(DETECTION_SOURCES)
  detectedBy!: DetectionSource;
}
