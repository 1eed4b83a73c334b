/**
 * The boot-worker's settings: drunc's K8sProcessManager settings (`pod_management`, `service`,
 * `cleanup`, `checking`, `volumes`, `home_path_base`) in camelCase with drunc's defaults, plus
 * what kpm adds (boot concurrency, node assignment, image allow-list, privilege policy).
 */
import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import {
  DNS_LABEL,
  DNS_SUBDOMAIN,
  HOSTNAME,
  MAX_LINUX_ID,
  QUANTITY,
  USER_NAME,
} from '@kpm/contracts/validation/rules';

/** Absolute, and no `..` segment that could climb out of the directory (path traversal). */
export const ABSOLUTE_PATH = /^\/(?!(.*\/)?\.\.(\/|$))/;
export const ABSOLUTE_PATH_MESSAGE = '$property must be an absolute path without ".." segments';

/** One host directory mounted into every pod (drunc's `volumes` entries). */
export class VolumeConfig {
  @Matches(DNS_LABEL, { message: 'name must be a DNS-1123 label' })
  name!: string;

  @Matches(ABSOLUTE_PATH, { message: ABSOLUTE_PATH_MESSAGE })
  mountPath!: string;

  @Matches(ABSOLUTE_PATH, { message: ABSOLUTE_PATH_MESSAGE })
  hostPath!: string;

  /** drunc mounts configured volumes read-only unless told otherwise (`read_only`, default true). */
  @IsOptional()
  @IsBoolean()
  readOnly?: boolean = true;
}

/**
 * drunc's configured volumes mounted only into readout applications' pods (its
 * `_get_pod_volumes_and_mounts` skips them for every other pod).
 */
export const READOUT_ONLY_VOLUMES: readonly string[] = ['hugepages', 'vfio', 'intel-firmware'];

/** Page sizes Linux offers on the DAQ's x86-64 and arm64 hosts (`hugepages-<size>` resources). */
const HUGEPAGE_SIZES = ['2Mi', '1Gi'] as const;

/**
 * The performance pod profile of drunc's readout applications (the processes
 * `readoutAppSelector` selects): cpu and memory with requests = limits, so the pod has
 * Guaranteed QoS, hugepages (also requests = limits, mounted at /dev/hugepages), and the node's
 * network when the operator allows it (docs/design.md §6.3 "The readout profile").
 */
export class ReadoutProfileConfig {
  /** A readout application's cpu, request = limit (Guaranteed QoS). */
  @Matches(QUANTITY, { message: 'cpu must be a Kubernetes quantity such as "8" or "7500m"' })
  cpu!: string;

  /** Its memory, request = limit. */
  @Matches(QUANTITY, { message: 'memory must be a Kubernetes quantity such as "32Gi"' })
  memory!: string;

  /** Hugepages of `hugepagesPageSize` (e.g. "2Gi"); none when unset. */
  @IsOptional()
  @Matches(QUANTITY, { message: 'hugepages must be a Kubernetes quantity such as "2Gi"' })
  hugepages?: string;

  /** The hugepage size: `2Mi` or `1Gi`. */
  @IsIn(HUGEPAGE_SIZES, {
    message: `hugepagesPageSize must be one of ${HUGEPAGE_SIZES.join(', ')}`,
  })
  hugepagesPageSize: (typeof HUGEPAGE_SIZES)[number] = '2Mi';

  /** The pod runs in the node's network namespace (Pod Security then allows it for the session). */
  @IsBoolean()
  hostNetwork = false;
}

/**
 * The user or group ids a process may run as, `min` to `max` inclusive. Never root: `min` is at
 * least 1, so no boot can ask for uid or gid 0.
 */
export class IdRange {
  @IsInt({ message: 'min must be a whole number' })
  @Min(1, { message: 'min must be at least 1 (root is never allowed)' })
  @Max(MAX_LINUX_ID)
  min!: number;

  @IsInt({ message: 'max must be a whole number' })
  @Min(1)
  @Max(MAX_LINUX_ID, { message: `max must be at most ${MAX_LINUX_ID}` })
  @ValidateBy({
    name: 'notBelowMin',
    validator: {
      validate: (value, args) => Number(value) >= (args?.object as IdRange).min,
      defaultMessage: () => 'max must not be below min',
    },
  })
  max!: number;
}

/** `KPM_RUN_AS_UID_RANGE=1000-60000` as an IdRange; anything else fails validation by name. */
export function idRangeOf(raw: string): { min: number; max: number } {
  const match = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(raw);
  return match ? { min: Number(match[1]), max: Number(match[2]) } : { min: NaN, max: NaN };
}

/** A uid and gid to run processes as: never root. */
export class RunAsIds {
  @IsInt({ message: 'uid must be a whole number' })
  @Min(1, { message: 'uid must be at least 1 (root is never allowed)' })
  @Max(MAX_LINUX_ID)
  uid!: number;

  @IsInt({ message: 'gid must be a whole number' })
  @Min(1, { message: 'gid must be at least 1 (root is never allowed)' })
  @Max(MAX_LINUX_ID)
  gid!: number;
}

/** `KPM_DEFAULT_RUN_AS=65534:65534` as RunAsIds; anything else fails validation by name. */
export function runAsIdsOf(raw: string): { uid: number; gid: number } {
  const match = /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(raw);
  return match ? { uid: Number(match[1]), gid: Number(match[2]) } : { uid: NaN, gid: NaN };
}

/** A user's processes run as this uid and gid (drunc runs every pod as the invoking user). */
export class RunAsUser {
  @Matches(USER_NAME, { message: 'user must be a user name' })
  user!: string;

  @IsInt({ message: 'uid must be a whole number' })
  @Min(1, { message: 'uid must be at least 1 (root is never allowed)' })
  @Max(MAX_LINUX_ID)
  uid!: number;

  @IsInt({ message: 'gid must be a whole number' })
  @Min(1, { message: 'gid must be at least 1 (root is never allowed)' })
  @Max(MAX_LINUX_ID)
  gid!: number;
}

/** `KPM_RUN_AS_USERS=alice:1000:1000,bob:1001:1001` as RunAsUser entries. */
export function runAsUsersOf(raw: string): Array<{ user: string; uid: number; gid: number }> {
  return commaList(raw).map((entry) => {
    const [user, uid, gid] = entry.split(':');
    return { user, uid: Number(uid), gid: Number(gid) };
  });
}

/** A range of ports, `min` to `max` inclusive. */
export class PortRange {
  /** The lowest port (of nodePortRange: the API server's --service-node-port-range). */
  @IsInt()
  @Min(1)
  @Max(65535)
  min!: number;

  /** The highest port, inclusive. */
  @IsInt()
  @Min(1)
  @Max(65535)
  @ValidateBy({
    name: 'portRangeOrdered',
    validator: {
      validate: (value, args) => Number(value) >= (args?.object as PortRange).min,
      defaultMessage: () => 'max must not be below min',
    },
  })
  max!: number;
}

/** A readout host's resources (drunc's `host_configs[<host>]`): Kubernetes quantities. */
export interface HostResources {
  limits?: Record<string, string>;
  requests?: Record<string, string>;
}

/** Why a `hostConfigs` map is wrong, naming the host and the resource; undefined if right. */
export function hostConfigsProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'hostConfigs must map host names to {limits, requests}';
  for (const [host, config] of Object.entries(value)) {
    if (!HOSTNAME.test(host)) return `hostConfigs: "${host}" is not a node name`;
    if (!isRecord(config)) return `hostConfigs.${host} must be {limits, requests}`;
    for (const [kind, quantities] of Object.entries(config)) {
      if (kind !== 'limits' && kind !== 'requests') {
        return `hostConfigs.${host}.${kind}: only limits and requests may be set`;
      }
      if (!isRecord(quantities))
        return `hostConfigs.${host}.${kind} must map resources to quantities`;
      for (const [resource, quantity] of Object.entries(quantities)) {
        if (typeof quantity !== 'string' || !QUANTITY.test(quantity)) {
          return `hostConfigs.${host}.${kind}.${resource}: ${JSON.stringify(quantity)} is not a Kubernetes quantity`;
        }
      }
    }
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * kpm's Kueue pod groups (docs/design.md §4 "Kueue pod groups"): an all-or-nothing boot's pods
 * are one Kueue pod group, admitted whole by `clusterQueue` or not at all.
 */
export class KueueConfig {
  /** The ClusterQueue (made by the cluster's admin) whose quota admits the sessions' groups. */
  @IsString()
  @Matches(DNS_SUBDOMAIN, {
    message: 'kueue.clusterQueue must be a DNS subdomain (a ClusterQueue name)',
  })
  clusterQueue!: string;

  /** The LocalQueue kpm makes in each session's namespace, pointing at `clusterQueue`. */
  @Matches(DNS_LABEL, { message: 'kueue.localQueue must be a DNS-1123 label' })
  localQueue = 'kpm';

  /**
   * How long a group may wait for Kueue's admission (its quota short, or Kueue down) before the
   * boot fails whole, its pods deleted and Kueue's reason given.
   */
  @IsInt()
  @Min(1)
  @Max(86_400)
  admissionTimeoutSeconds = 300;
}

/**
 * Why `kueue` cannot be used with the other pod settings; undefined if it can. A gated pod may not
 * name its node (the API server refuses it), and the pods of a group exist before their
 * connection server runs, so they reach it by its Service, not its pod's address.
 */
export function kueueProblem(
  pods: Pick<PodManagementConfig, 'assignNodes' | 'localhostAlias'>,
): string | undefined {
  if (pods.assignNodes)
    return 'kueue needs assignNodes: false (a pod Kueue holds behind its scheduling gate may not name its node; a scheduler places it once admitted)';
  if (pods.localhostAlias === 'pod-ip')
    return "kueue needs localhostAlias cluster-ip or none (a group's pods are made before their connection server has a pod address)";
  return undefined;
}

/** How the boot-worker creates, readies and kills pods. */
export class PodManagementConfig {
  /** drunc's kill_timeout: the pods' terminationGracePeriodSeconds and the default kill grace. */
  @IsInt()
  @Min(0)
  @Max(3600)
  killTimeoutSeconds = 30;

  /**
   * How long a process stays on a node the cluster lost (its kubelet silent: Ready Unknown,
   * tainted `node.kubernetes.io/unreachable`) before Kubernetes evicts it and kpm reports it
   * ended `NodeLost`: the pods' toleration of that taint. Kubernetes' own default is 300 s.
   */
  @IsInt()
  @Min(0)
  @Max(86_400)
  nodeLostSeconds = 30;

  /** drunc's pod_ready_timeout: how long the connection server and root controller may take. */
  @IsInt()
  @Min(1)
  @Max(3600)
  podReadyTimeoutSeconds = 60;

  /** drunc's service.headless_discovery_port: the port of each process's headless Service. */
  @IsInt()
  @Min(1)
  @Max(65535)
  headlessDiscoveryPort = 80;

  /** drunc's checking.host_cache_expiry: how long a node's Ready/schedulable verdict is trusted. */
  @IsInt()
  @Min(0)
  @Max(86400)
  hostCacheExpirySeconds = 300;

  /** drunc's cleanup.restart_cleanup_time, in seconds; kpm waits for the watcher's record too, so 30 rather than 10. */
  @IsInt()
  @Min(1)
  @Max(3600)
  restartCleanupSeconds = 30;

  /** How long a boot waits for a Terminating namespace of the same session to go. */
  @IsInt()
  @Min(1)
  @Max(3600)
  namespaceCleanupTimeoutSeconds = 120;

  /** Pods (and their Services) of one boot created at once: never one blocking call at a time. */
  @IsInt()
  @Min(1)
  @Max(1000)
  bootConcurrency = 64;

  /**
   * Set `spec.nodeName` (allowedHosts[0] after the Ready check, else a Ready node) instead of
   * leaving the choice to a scheduler through a node selector. On for the local stack (kwok
   * schedules nothing); a cluster with a scheduler may turn it off.
   */
  @IsBoolean()
  assignNodes = true;

  /** Seconds past the grace period after which a pod not yet ended is killed with grace 0. */
  @IsInt()
  @Min(0)
  @Max(3600)
  killEscalationMarginSeconds = 5;

  /** Seconds a stage waits after the grace-0 escalation before moving on. */
  @IsInt()
  @Min(0)
  @Max(3600)
  forcedKillWaitSeconds = 15;

  /** How long a Kubernetes call is retried on 429/5xx/network errors before the process fails. */
  @IsInt()
  @Min(1)
  @Max(3600)
  apiRetryDeadlineSeconds = 30;

  /** The image of a process that names none (drunc's configured image). */
  @IsString()
  @IsNotEmpty()
  image = 'ghcr.io/dune-daq/alma9:latest';

  /** Images a process may name: exact references or prefixes ending in `*`; `*` allows all. */
  @IsArray()
  @ArrayMinSize(1, { message: 'allowedImages must list at least one image or pattern' })
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  allowedImages: string[] = ['*'];

  /** Whether a process may ask for a privileged container. */
  @IsBoolean()
  allowPrivileged = false;

  /** drunc's local connection server: booted first and waited for, like the root controller. */
  @Matches(DNS_LABEL, {
    message: 'connectionServerName must be a DNS-1123 label',
  })
  connectionServerName = 'local-connection-server';

  /**
   * drunc's checking.socket_retry_timeout: the wait between tries to reach the connection server's
   * socket — the period of its TCP readiness probe.
   */
  @IsInt()
  @Min(1)
  @Max(60)
  socketRetryTimeoutSeconds = 1;

  /**
   * The controllers' readiness probe on the port of their command line (drunc's `--port N` or
   * `-c grpc://host:N`): `grpc` (gRPC health, for controllers that serve it), `tcp`, or `none`
   * (their Ready is the container's start, as before).
   */
  @IsIn(['none', 'tcp', 'grpc'], {
    message: 'controllerReadinessProbe must be one of none, tcp, grpc',
  })
  controllerReadinessProbe: 'none' | 'tcp' | 'grpc' = 'tcp';

  /**
   * After the root controller and the connection server are Ready, drunc connects to them itself
   * through their node port (TCP to the root, HTTP to the connection server) before booting the
   * rest: `node-port` as drunc (the pod's node, the Service's node port), `pod-ip` (the pod's
   * address and port, for clusters where node ports do not route, e.g. without kube-proxy), or
   * `none`: their Ready is enough — it already follows a TCP connect to their port by the kubelet
   * (their readiness probes), and the boot-worker need not reach the nodes' network.
   */
  @IsIn(['node-port', 'pod-ip', 'none'], {
    message: 'reachabilityCheck must be one of node-port, pod-ip, none',
  })
  reachabilityCheck: 'node-port' | 'pod-ip' | 'none' = 'none';

  /** drunc's checking.service_startup_timeout: how long that connection may take to succeed. */
  @IsInt()
  @Min(1)
  @Max(3600)
  serviceStartupTimeoutSeconds = 30;

  /** The executables drunc counts as controllers: with tree id `0` or `0.…` they are controllers. */
  @IsArray()
  @ArrayMinSize(1, { message: 'controllerExecutables must name at least one executable' })
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  controllerExecutables: string[] = ['drunc-controller'];

  /**
   * `host`: every pod but the NodePort ones (connection server, root controller) runs in its
   * node's network, as drunc's; `pod`: every pod in the pod network (a readout profile may still
   * ask the node's).
   */
  @IsIn(['host', 'pod'], { message: 'network must be host or pod' })
  network: 'host' | 'pod' = 'host';

  /**
   * drunc's NodePort Services: the connection server and the root controller reachable from
   * outside the cluster on their own ports (which must then be in `nodePortRange`); off: headless.
   */
  @IsBoolean()
  nodePorts = true;

  /** The cluster's NodePort range (the API server's --service-node-port-range). */
  @ValidateNested()
  @Type(() => PortRange)
  nodePortRange: PortRange = Object.assign(new PortRange(), { min: 30000, max: 32767 });

  /**
   * drunc maps `localhost` to the connection server in every other pod: `cluster-ip` (its
   * Service's ClusterIP, as drunc; needs a service proxy such as kube-proxy), `pod-ip` (its pod's
   * address: routes wherever pods do, but changes when it restarts), or `none`.
   */
  @IsIn(['cluster-ip', 'pod-ip', 'none'], {
    message: 'localhostAlias must be one of cluster-ip, pod-ip, none',
  })
  localhostAlias: 'cluster-ip' | 'pod-ip' | 'none' = 'cluster-ip';

  /** drunc's connection_server_port: the local connection server's port (its NodePort's target). */
  @IsInt()
  @Min(1)
  @Max(65535)
  connectionServerPort = 5000;

  /**
   * drunc's connection_server_node_port: when set, the connection server is reachable from outside
   * the cluster through a NodePort Service on this port; a boot is refused while another Service
   * holds it (drunc's pre-boot collision check).
   */
  @IsOptional()
  @IsInt()
  @Min(30000)
  @Max(32767)
  connectionServerNodePort?: number;

  /**
   * drunc's readout_app_selector: a process whose name contains it (in any case) is a readout
   * application and gets `readoutProfile`, when one is configured.
   */
  @IsString()
  @IsNotEmpty({ message: 'readoutAppSelector must not be empty (it would select every process)' })
  readoutAppSelector = 'runp';

  /** The readout applications' pod profile; none by default (they run like any process). */
  @IsOptional()
  @ValidateNested()
  @Type(() => ReadoutProfileConfig)
  readoutProfile?: ReadoutProfileConfig;

  /**
   * The uids a process may ask to run as (`processes[i].uid`, the pod's runAsUser); unset: no
   * process may ask one, and it runs as its user's (`runAsUsers`, else `defaultRunAs`).
   */
  @IsOptional()
  @ValidateNested()
  @Type(() => IdRange)
  runAsUidRange?: IdRange;

  /** The gids a process may ask to run as (`processes[i].gid`: runAsGroup and fsGroup). */
  @IsOptional()
  @ValidateNested()
  @Type(() => IdRange)
  runAsGidRange?: IdRange;

  /**
   * The uid and gid each user's processes run as when they ask none (drunc runs every pod as the
   * user who booted it); a user not listed runs as `defaultRunAs`. Never root.
   */
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => RunAsUser)
  runAsUsers: RunAsUser[] = [];

  /**
   * The uid and gid of a user not in `runAsUsers` whose process asks none; unset: such a boot is
   * refused, naming the user (kpm never runs a DAQ process as root by default). Never root.
   */
  @IsOptional()
  @ValidateNested()
  @Type(() => RunAsIds)
  defaultRunAs?: RunAsIds;

  /**
   * drunc's host_configs: a readout application's resources by the host it runs on. When any
   * host is listed, a readout application must run on a listed host (drunc's fatal error else).
   */
  @ValidateBy({
    name: 'hostConfigs',
    validator: {
      validate: (value) => hostConfigsProblem(value) === undefined,
      defaultMessage: (args) => hostConfigsProblem(args?.value) ?? 'hostConfigs is invalid',
    },
  })
  hostConfigs: Record<string, HostResources> = {};

  /**
   * drunc's readout applications on a `hostConfigs` host run privileged with IPC_LOCK (DPDK and
   * hugepages need them); off: they get their host's resources only.
   */
  @IsBoolean()
  readoutPrivileged = true;

  /** Upper bound of one logs answer, so it always fits one Kafka record. */
  @IsInt()
  @Min(1024)
  @Max(4 * 1024 * 1024)
  logsMaxBytes = 256 * 1024;

  /**
   * Host directories a process may mount (`logsPath`, `restriction.dataMount`), with everything
   * below them: drunc's log, data and home bases. `/`, `/etc`, `/proc`, `/sys`, `/root`,
   * `/var/run` and the like are refused even under a prefix (docs/design.md §6.3).
   */
  @IsArray()
  @Matches(/^\/[^/]/, { each: true, message: 'hostPathPrefixes must be absolute paths below /' })
  @Matches(ABSOLUTE_PATH, { each: true, message: ABSOLUTE_PATH_MESSAGE })
  hostPathPrefixes: string[] = ['/log', '/var/log/daq', '/data', '/home'];

  /** Linux capabilities a container keeps after dropping ALL (e.g. `NET_ADMIN`); none by default. */
  @IsArray()
  @Matches(/^[A-Z][A-Z_]*$/, {
    each: true,
    message: 'allowedCapabilities must be capability names such as NET_ADMIN',
  })
  allowedCapabilities: string[] = [];

  /** The most cpu a process may request or limit (a Kubernetes quantity); no cap by default. */
  @IsOptional()
  @Matches(QUANTITY, { message: 'maxCpu must be a Kubernetes quantity such as "4" or "500m"' })
  maxCpu?: string;

  /** The most memory a process may request or limit (a Kubernetes quantity); no cap by default. */
  @IsOptional()
  @Matches(QUANTITY, { message: 'maxMemory must be a Kubernetes quantity such as "16Gi"' })
  maxMemory?: string;

  /** The most processes one boot may carry; the contract's 5000 by default. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(5000)
  maxProcessesPerBoot?: number;

  /**
   * Kueue pod groups for all-or-nothing boots; unset: none, an all-or-nothing boot checks hosts and
   * room itself only (docs/design.md §4 "All or nothing").
   */
  @IsOptional()
  @ValidateNested()
  @Type(() => KueueConfig)
  @ValidateBy({
    name: 'kueueWithScheduler',
    validator: {
      validate: (_value, args) => kueueProblem(args?.object as PodManagementConfig) === undefined,
      defaultMessage: (args) =>
        kueueProblem(args?.object as PodManagementConfig) ?? 'kueue is invalid',
    },
  })
  kueue?: KueueConfig;
}

/** How the boot-worker carries out commands (docs/design.md §9.2). */
export class CommandsConfig {
  /**
   * Commands of one partition read and not yet finished, running or waiting behind an earlier
   * command of their session. Sessions run concurrently, one session's commands in order; at the
   * bound, reading that partition pauses until a command finishes.
   */
  @IsInt()
  @Min(1)
  @Max(10_000)
  maxInFlight = 64;
}

/** Environment variables for the boot-worker's settings (`KPM_*`), by setting path. */
export const BOOT_WORKER_ENV: ReadonlyArray<[string, string, (raw: string) => unknown]> = [
  ['KPM_KILL_TIMEOUT_SECONDS', 'podManagement.killTimeoutSeconds', Number],
  ['KPM_POD_READY_TIMEOUT_SECONDS', 'podManagement.podReadyTimeoutSeconds', Number],
  ['KPM_NODE_LOST_SECONDS', 'podManagement.nodeLostSeconds', Number],
  ['KPM_BOOT_CONCURRENCY', 'podManagement.bootConcurrency', Number],
  ['KPM_ASSIGN_NODES', 'podManagement.assignNodes', (raw) => raw === 'true'],
  ['KPM_DEFAULT_IMAGE', 'podManagement.image', String],
  [
    'KPM_ALLOWED_IMAGES',
    'podManagement.allowedImages',
    (raw) =>
      raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
  ],
  ['KPM_ALLOW_PRIVILEGED', 'podManagement.allowPrivileged', (raw) => raw === 'true'],
  ['KPM_RESTART_CLEANUP_SECONDS', 'podManagement.restartCleanupSeconds', Number],
  ['KPM_HOME_PATH_BASE', 'homePathBase', String],
  ['KPM_COMMANDS_MAX_IN_FLIGHT', 'commands.maxInFlight', Number],
  ['KPM_HOST_PATH_PREFIXES', 'podManagement.hostPathPrefixes', commaList],
  ['KPM_ALLOWED_CAPABILITIES', 'podManagement.allowedCapabilities', commaList],
  ['KPM_MAX_CPU', 'podManagement.maxCpu', String],
  ['KPM_MAX_MEMORY', 'podManagement.maxMemory', String],
  ['KPM_MAX_PROCESSES_PER_BOOT', 'podManagement.maxProcessesPerBoot', Number],
  ['KPM_CONNECTION_SERVER_NODE_PORT', 'podManagement.connectionServerNodePort', Number],
  ['KPM_READOUT_APP_SELECTOR', 'podManagement.readoutAppSelector', String],
  ['KPM_CONTROLLER_READINESS_PROBE', 'podManagement.controllerReadinessProbe', String],
  ['KPM_RUN_AS_UID_RANGE', 'podManagement.runAsUidRange', idRangeOf],
  ['KPM_RUN_AS_GID_RANGE', 'podManagement.runAsGidRange', idRangeOf],
  ['KPM_RUN_AS_USERS', 'podManagement.runAsUsers', runAsUsersOf],
  ['KPM_DEFAULT_RUN_AS', 'podManagement.defaultRunAs', runAsIdsOf],
  ['KPM_REACHABILITY_CHECK', 'podManagement.reachabilityCheck', String],
  ['KPM_SERVICE_STARTUP_TIMEOUT_SECONDS', 'podManagement.serviceStartupTimeoutSeconds', Number],
  ['KPM_CONTROLLER_EXECUTABLES', 'podManagement.controllerExecutables', commaList],
  ['KPM_NETWORK', 'podManagement.network', String],
  ['KPM_NODE_PORTS', 'podManagement.nodePorts', (raw) => raw === 'true'],
  ['KPM_NODE_PORT_RANGE', 'podManagement.nodePortRange', idRangeOf],
  ['KPM_LOCALHOST_ALIAS', 'podManagement.localhostAlias', String],
  ['KPM_READOUT_PRIVILEGED', 'podManagement.readoutPrivileged', (raw) => raw === 'true'],
  ['KPM_KUEUE_CLUSTER_QUEUE', 'podManagement.kueue.clusterQueue', String],
  ['KPM_KUEUE_LOCAL_QUEUE', 'podManagement.kueue.localQueue', String],
  ['KPM_KUEUE_ADMISSION_TIMEOUT_SECONDS', 'podManagement.kueue.admissionTimeoutSeconds', Number],
];

function commaList(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
