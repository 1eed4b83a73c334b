/**
 * The watcher's settings (docs/design.md §6.5): which waiting reasons end a pod, how the
 * pod watch is kept alive, how terminations are published and how replicas elect the active one.
 * drunc's `watcher_retry_sleep` (5 s) is kept as the ceiling of the retry backoff.
 */
import 'reflect-metadata';
import {
  ArrayMinSize,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { DNS_LABEL, DNS_SUBDOMAIN } from '@kpm/contracts/validation/rules';

/** Waiting reasons after which the container will never start by itself. */
export const DEFAULT_FATAL_WAITING_REASONS = [
  'ErrImagePull',
  'ImagePullBackOff',
  // The image is not on the node and its pull policy is Never (a site's air-gapped images).
  'ErrImageNeverPull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
];

export class WatcherConfig {
  /** Waiting reasons after which a container never starts: its process has ended (docs/design.md §6.5). */
  @IsArray()
  @ArrayMinSize(1)
  @IsString({ each: true })
  fatalWaitingReasons: string[] = [...DEFAULT_FATAL_WAITING_REASONS];

  /**
   * ErrImagePull / ImagePullBackOff end a process only once its pod started this long ago (a
   * registry's rate limit or a network blip may pass); 0 ends it at once. InvalidImageName and
   * the other fatal reasons end it at once regardless. Seen at the next pod event or re-list.
   */
  @IsInt()
  @Min(0)
  @Max(3600)
  imagePullGraceSeconds = 0;

  /** drunc's watcher_retry_sleep: the longest wait (seconds) between retries after an error. */
  @IsInt()
  @Min(1)
  @Max(300)
  watcherRetrySleepSeconds = 5;

  /** First retry wait (ms); doubles per failure with full jitter up to watcherRetrySleepSeconds. */
  @IsInt()
  @Min(1)
  @Max(60_000)
  retryInitialMs = 200;

  /**
   * A watch stream that delivers nothing (not even a bookmark) for this long is presumed dead and
   * restarted from the last resourceVersion. The API server bookmarks about once a minute.
   */
  @IsInt()
  @Min(1)
  @Max(3600)
  watchInactivitySeconds = 90;

  /** Server-side timeout of each watch request; the stream then resumes from the last version. */
  @IsInt()
  @Min(1)
  @Max(3600)
  watchTimeoutSeconds = 300;

  /**
   * The leader's pod watch failing (not established) for longer than this makes `/healthz` fail,
   * so Kubernetes restarts the replica (0 = never). Long enough for the first list of a big cluster.
   */
  @IsInt()
  @Min(0)
  @Max(3600)
  watchFailureDeadlineSeconds = 120;

  /** Any API call (list page, finalizer patch, Lease) taking longer is aborted and retried. */
  @IsInt()
  @Min(1)
  @Max(600)
  requestTimeoutSeconds = 15;

  /** Every so often the pods are re-listed and compared with what the watch said (0 = never). */
  @IsInt()
  @Min(0)
  @Max(86_400)
  reconcilePeriodSeconds = 300;

  /**
   * How often the leader asks which nodes the cluster has lost (Ready Unknown): a pod being deleted
   * on one ends NodeLost, since no kubelet is left to report it (0 = never: such a pod waits for
   * its node to come back).
   */
  @IsInt()
  @Min(0)
  @Max(3600)
  nodeCheckSeconds = 5;

  /**
   * A fresh leader first reads the process table (`kpm.processes`) for the pods it shows RUNNING,
   * so a pod deleted while no watcher ran is still reported; the read gives up after this long.
   */
  @IsInt()
  @Min(1)
  @Max(3600)
  tableSweepTimeoutSeconds = 60;

  /** Pods per page of a list. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  listPageSize = 500;

  /** Terminations per Kafka request when many pods end at once. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  publishBatchSize = 500;

  /** Finalizer removals in flight at once. */
  @IsInt()
  @Min(1)
  @Max(256)
  finalizerConcurrency = 16;

  /** The Lease electing the active replica; defaults to `kpm-watcher.<label domain>`. */
  @IsOptional()
  @Matches(DNS_SUBDOMAIN, { message: 'leaseName must be a DNS subdomain' })
  leaseName?: string;

  /** The namespace of that Lease. */
  @Matches(DNS_LABEL, {
    message: 'leaseNamespace must be a DNS-1123 label',
  })
  leaseNamespace = 'default';

  /** How long a leader's claim holds without renewal (client-go's default 15 s). */
  @IsInt()
  @Min(2)
  @Max(600)
  leaseDurationSeconds = 15;

  /** A leader that could not renew for this long steps down; must be below leaseDurationSeconds. */
  @IsInt()
  @Min(1)
  @Max(600)
  leaseRenewDeadlineSeconds = 10;

  /** How often candidates try to acquire and the leader renews. */
  @IsInt()
  @Min(1)
  @Max(600)
  leaseRetryPeriodSeconds = 2;
}

/** Environment variables for the watcher settings operators set per replica. */
export const WATCHER_ENV: ReadonlyArray<[string, string, (raw: string) => unknown]> = [
  ['KPM_LEASE_NAME', 'watcher.leaseName', String],
  ['KPM_LEASE_NAMESPACE', 'watcher.leaseNamespace', String],
];
