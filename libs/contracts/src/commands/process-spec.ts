/**
 * What to boot: drunc's BootRequest (ProcessDescription + ProcessRestriction) in camelCase,
 * plus the Kubernetes knobs kpm adds (image, labels, annotations, resources).
 *
 * Which images or privileges are allowed is configuration, enforced by the boot-worker, not here.
 */
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import {
  HOSTNAME,
  IsLinuxId,
  HOSTNAME_MAX,
  IsDataMount,
  IsProcessName,
  IsLogFilePath,
  IsSafeAbsolutePath,
  IsStringMap,
  IsTreeId,
} from '../validation/rules';
import { ExitPolicy } from './exit-policy';
import { LIMITS } from './limits';
import {
  EnvFromSecret,
  IsSecretEnvList,
  MAX_ENV_FROM,
  MAX_SECRET_ENV,
  SecretEnvVar,
} from './secret-env';

/** One command of the process; the pod runs them joined by `&&`, the last one `exec`'d. */
export class ExecutableAndArguments {
  @IsString()
  @IsNotEmpty()
  @MaxLength(LIMITS.maxStringLength)
  exec!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(LIMITS.maxArgsPerCommand)
  @IsString({ each: true })
  @MaxLength(LIMITS.maxStringLength, { each: true })
  args?: string[] = [];
}

/** Where a process may run: `allowedHosts[0]` becomes the pod's node selector. */
export class ProcessRestriction {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(LIMITS.maxAllowedHosts)
  @MaxLength(HOSTNAME_MAX, { each: true })
  @Matches(HOSTNAME, {
    each: true,
    message: 'each host must be a Kubernetes node name (DNS-1123 subdomain)',
  })
  allowedHosts?: string[];

  /**
   * Host directory mounted for data, at the same path; absolute and without `..`
   * (`unsafePathReason`), or drunc's `"."` for the process's `executionDirectory`.
   */
  @IsOptional()
  @IsDataMount()
  dataMount?: string;
}

/** Kubernetes requests and limits, e.g. `{cpu: "500m", memory: "1Gi"}`. */
export class Resources {
  @IsOptional()
  @IsStringMap('isQuantityMap')
  requests?: Record<string, string>;

  @IsOptional()
  @IsStringMap('isQuantityMap')
  limits?: Record<string, string>;
}

export class ProcessSpec {
  /** Given by the client, or derived by the boot-worker from (command id, index). */
  @IsOptional()
  @IsUUID('all', { message: 'must be a UUID' })
  uuid?: string;

  /** drunc's name of the process, kept as given; the pod's name derives from it (§6.3). */
  @IsProcessName()
  name!: string;

  /** drunc's position in the control tree; decides the role and the shutdown stage. */
  @IsOptional()
  @IsTreeId()
  treeId?: string;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  @Matches(/^\S+$/, { message: 'must be an image reference without whitespace' })
  image?: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(LIMITS.maxCommandsPerProcess)
  @ValidateNested({ each: true })
  @Type(() => ExecutableAndArguments)
  executableAndArguments!: ExecutableAndArguments[];

  @IsOptional()
  @IsStringMap('isEnvMap')
  env?: Record<string, string>;

  /**
   * Variables whose values the kubelet takes from Secrets of the session's namespace; only the
   * names travel (secret-env.ts). For passwords and tokens: a value in `env` is on Kafka.
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_SECRET_ENV)
  @ValidateNested({ each: true })
  @Type(() => SecretEnvVar)
  @IsSecretEnvList()
  secretEnv?: SecretEnvVar[];

  /** Secrets of the session's namespace whose every key becomes a variable (below `env`). */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_ENV_FROM)
  @ValidateNested({ each: true })
  @Type(() => EnvFromSecret)
  envFrom?: EnvFromSecret[];

  @IsOptional()
  @IsSafeAbsolutePath()
  executionDirectory?: string;

  /** kpm's log directory: the host directory mounted at the same path (the process writes there). */
  @IsOptional()
  @IsSafeAbsolutePath()
  logsPath?: string;

  /**
   * drunc's `process_logs_path`, a file: its directory is mounted at the same path and the
   * process's stdout and stderr are appended to it (`tee -a`), as well as to the pod's log.
   */
  @IsOptional()
  @IsLogFilePath()
  logFile?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => ProcessRestriction)
  restriction?: ProcessRestriction;

  @IsOptional()
  @IsStringMap('isLabelMap')
  labels?: Record<string, string>;

  @IsOptional()
  @IsStringMap('isAnnotationMap')
  annotations?: Record<string, string>;

  @IsOptional()
  @ValidateNested()
  @Type(() => Resources)
  resources?: Resources;

  /**
   * The user id the process runs as (the pod's runAsUser), as drunc runs processes as the
   * invoking user, so files on its log and data mounts belong to that user. Per process, so a
   * restart (which boots the stored spec) keeps it. The boot-worker allows only its configured
   * range (podManagement.runAsUidRange); unset: the image's user.
   */
  @IsOptional()
  @IsLinuxId()
  uid?: number;

  /** The group id the process runs as (runAsGroup and fsGroup); within podManagement.runAsGidRange. */
  @IsOptional()
  @IsLinuxId()
  gid?: number;

  /**
   * What kpm does when this process ends on its own (exit-policy.ts); absent: the boot's
   * `exitPolicy`, else none (every end is counted, as drunc does). Stored with the spec, so a
   * restart keeps it.
   */
  @IsOptional()
  @ValidateNested()
  @Type(() => ExitPolicy)
  exitPolicy?: ExitPolicy;
}
