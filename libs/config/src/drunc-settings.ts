/**
 * drunc's process-manager configuration as-is: a `KPM_CONFIG` file holding drunc's `settings`
 * document (the K8sProcessManager's nested `labels`, `pod_management`, `cleanup`, `checking`,
 * `service`, `volumes`, `home_path_base`, `readout_app_selector`, `host_configs`) and its
 * top-level `image` loads unchanged, each setting given its kpm name and, when absent, drunc's
 * default — so a drunc deployment behaves as it did (restart_cleanup_time 10, not kpm's own 30).
 * Every other key is named with why it has no effect (`druncConfigurationReport`); one drunc's
 * newest loader does not know either is reported as unknown, as drunc warns and discards it.
 * kpm's own names in the same file win.
 */
import { isPlainObject } from './plain-object';

type Tree = Record<string, unknown>;

/** One drunc setting: where it is in drunc's document, where it goes in kpm's, its default. */
interface DruncSetting {
  drunc: string;
  kpm: string;
  /** drunc's default (K8sProcessManager.__init__); undefined: none. */
  druncDefault?: number | string;
  kind: 'seconds' | 'port' | 'string';
}

/** drunc's settings with a kpm counterpart. */
export const DRUNC_SETTINGS: readonly DruncSetting[] = [
  { drunc: 'labels.drunc_label', kpm: 'labels.domain', druncDefault: 'drunc.daq', kind: 'string' },
  {
    drunc: 'service.headless_discovery_port',
    kpm: 'podManagement.headlessDiscoveryPort',
    druncDefault: 80,
    kind: 'port',
  },
  {
    drunc: 'pod_management.kill_timeout',
    kpm: 'podManagement.killTimeoutSeconds',
    druncDefault: 30,
    kind: 'seconds',
  },
  {
    drunc: 'pod_management.pod_ready_timeout',
    kpm: 'podManagement.podReadyTimeoutSeconds',
    druncDefault: 60,
    kind: 'seconds',
  },
  {
    drunc: 'cleanup.restart_cleanup_time',
    kpm: 'podManagement.restartCleanupSeconds',
    druncDefault: 10,
    kind: 'seconds',
  },
  {
    drunc: 'checking.host_cache_expiry',
    kpm: 'podManagement.hostCacheExpirySeconds',
    druncDefault: 300,
    kind: 'seconds',
  },
  {
    drunc: 'checking.watcher_retry_sleep',
    kpm: 'watcher.watcherRetrySleepSeconds',
    druncDefault: 5,
    kind: 'seconds',
  },
  { drunc: 'home_path_base', kpm: 'homePathBase', kind: 'string' },
  {
    drunc: 'checking.socket_retry_timeout',
    kpm: 'podManagement.socketRetryTimeoutSeconds',
    druncDefault: 1,
    kind: 'seconds',
  },
  {
    drunc: 'connection_server_port',
    kpm: 'podManagement.connectionServerPort',
    druncDefault: 5000,
    kind: 'port',
  },
  {
    drunc: 'readout_app_selector',
    kpm: 'podManagement.readoutAppSelector',
    druncDefault: 'runp',
    kind: 'string',
  },
  {
    drunc: 'connection_server_node_port',
    kpm: 'podManagement.connectionServerNodePort',
    kind: 'port',
  },
  {
    drunc: 'checking.service_startup_timeout',
    kpm: 'podManagement.serviceStartupTimeoutSeconds',
    druncDefault: 30,
    kind: 'seconds',
  },
  // Older drunc configurations name the connection server (newer ones recognise it by name).
  { drunc: 'connection_server.name', kpm: 'podManagement.connectionServerName', kind: 'string' },
];

/**
 * drunc settings (paths under `settings`) kpm reads and that have no effect, each with why. drunc
 * polls where kpm watches; older drunc versions had settings the newest one no longer reads.
 */
export const DRUNC_SETTINGS_WITHOUT_EFFECT: Readonly<Record<string, string>> = {
  'cleanup.restart_cleanup_polling':
    'drunc polls for the old pod to go; kpm waits on the watch (podManagement.restartCleanupSeconds bounds it)',
  'cleanup.kill_watch_fallback_poll_interval':
    "drunc polls when its watch missed a pod; kpm's watcher re-lists (watcher.reconcilePeriodSeconds)",
  'checking.pod_status_check_sleep':
    'drunc polls pod status while it waits; kpm waits on the watch',
  'checking.grpc_startup_timeout':
    "not read by drunc's newest process manager either (podManagement.serviceStartupTimeoutSeconds is checking.service_startup_timeout)",
  'pod_management.total_shutdown_timeout':
    "not read by drunc's newest process manager; kpm bounds a kill by its stages (docs/design.md §6.4)",
  'service.port': "an older name; drunc's newest reads service.headless_discovery_port",
};

/**
 * The rest of drunc's process-manager configuration (top-level keys beside `settings`): drunc's
 * own server, not the pods. Each with why it has no effect in kpm.
 */
export const DRUNC_CONFIGURATION_WITHOUT_EFFECT: Readonly<Record<string, string>> = {
  type: "the process manager's kind: kpm is the K8s one",
  name: "drunc's server name (kpm's services have their own)",
  command_address: "drunc's gRPC address (kpm is driven over Kafka; a gateway serves drunc's gRPC)",
  authoriser: "drunc's dummy authoriser (kpm checks session ownership, docs/design.md §4)",
  broadcaster: "drunc's Kafka broadcaster (kpm broadcasts on kpm.broadcast, §5.4)",
  environment: "the environment of drunc's own process (never given to pods)",
  opmon_uri: "drunc's operational monitoring (kpm serves Prometheus metrics, §7.5)",
  opmon_conf: "drunc's operational monitoring (kpm serves Prometheus metrics, §7.5)",
  host: "drunc's own host",
  port: "drunc's own port",
};

/** What a drunc configuration file's keys do in kpm: applied, without effect (why), or unknown. */
export interface DruncConfigurationReport {
  applied: string[];
  withoutEffect: Array<{ key: string; reason: string }>;
  /** Keys drunc's newest loader does not know either: drunc warns and discards them. */
  unknown: string[];
}

/** Every key of drunc's configuration `file`, classified (for the boot-worker's start log). */
export function druncConfigurationReport(file: Tree): DruncConfigurationReport {
  const report: DruncConfigurationReport = { applied: [], withoutEffect: [], unknown: [] };
  for (const key of Object.keys(file)) {
    if (key === 'settings' || KPM_SECTIONS.has(key)) continue;
    if (key === 'image') report.applied.push('image');
    else if (key in DRUNC_CONFIGURATION_WITHOUT_EFFECT) {
      report.withoutEffect.push({ key, reason: DRUNC_CONFIGURATION_WITHOUT_EFFECT[key] });
    } else report.unknown.push(key);
  }
  for (const path of settingPaths(file.settings as Tree)) {
    if (path.startsWith('labels.') && path !== 'labels.drunc_label') {
      report.withoutEffect.push({ key: `settings.${path}`, reason: LABELS_REASON });
    } else if (APPLIED.some((p) => path === p || path.startsWith(`${p}.`))) {
      report.applied.push(`settings.${path}`);
    } else if (path in DRUNC_SETTINGS_WITHOUT_EFFECT) {
      report.withoutEffect.push({
        key: `settings.${path}`,
        reason: DRUNC_SETTINGS_WITHOUT_EFFECT[path],
      });
    } else report.unknown.push(`settings.${path}`);
  }
  return report;
}

/** drunc settings applied as a whole (their entries are not settings of their own). */
const WHOLE = ['volumes', 'host_configs'];

const LABELS_REASON = 'drunc reads only labels.drunc_label (the label domain)';

/** Paths of drunc settings kpm applies. */
const APPLIED = [...DRUNC_SETTINGS.map((s) => s.drunc), ...WHOLE];

/** The leaf settings of drunc's `settings` (sections one level deep; whole ones as one). */
function settingPaths(settings: Tree): string[] {
  return Object.entries(settings).flatMap(([key, value]) =>
    isPlainObject(value) && !WHOLE.includes(key)
      ? Object.keys(value).map((inner) => `${key}.${inner}`)
      : [key],
  );
}

/** Whether a parsed `KPM_CONFIG` file is drunc's process-manager configuration. */
export function isDruncConfiguration(file: Tree): boolean {
  return isPlainObject(file.settings);
}

/**
 * kpm's settings for drunc's configuration `file`: `fromDrunc`, its `settings` translated
 * (drunc's defaults for what is absent); `own`, kpm's own top-level sections of the file, to be
 * merged over them. `problems` name each drunc setting of the wrong type, by its drunc path.
 */
export function fromDruncConfiguration(
  file: Tree,
  origin: string,
): { fromDrunc: Tree; own: Tree; problems: string[] } {
  const settings = file.settings as Tree;
  const tree: Tree = {};
  const problems: string[] = [];
  for (const setting of DRUNC_SETTINGS) {
    const given = valueAt(settings, setting.drunc);
    const value = given === undefined ? setting.druncDefault : given;
    if (value === undefined) continue;
    const converted = convert(value, setting.kind);
    if (converted === undefined) {
      problems.push(`${origin}: settings.${setting.drunc}: ${expected(setting.kind)}`);
      continue;
    }
    setAt(tree, setting.kpm, converted);
  }
  const volumes = druncVolumes(settings.volumes, origin, problems);
  if (volumes) tree.volumes = volumes;
  const hostConfigs = druncHostConfigs(settings.host_configs, origin, problems);
  if (hostConfigs) setAt(tree, 'podManagement.hostConfigs', hostConfigs);
  if (file.image !== undefined) {
    if (typeof file.image === 'string') setAt(tree, 'podManagement.image', file.image);
    else problems.push(`${origin}: image: must be a string`);
  }
  const own = Object.fromEntries(Object.entries(file).filter(([key]) => KPM_SECTIONS.has(key)));
  return { fromDrunc: tree, own, problems };
}

/** kpm's own top-level sections, allowed beside drunc's `settings` in one file. */
const KPM_SECTIONS = new Set([
  'kafka',
  'http',
  'kubeconfig',
  'podManagement',
  'watcher',
  'state',
  'instance',
]);

/** drunc's `volumes` entries (snake_case) as kpm's; validation names a missing field later. */
function druncVolumes(raw: unknown, origin: string, problems: string[]): Tree[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    problems.push(`${origin}: settings.volumes: must be a list`);
    return undefined;
  }
  return raw.map((entry: unknown) => {
    const volume = isPlainObject(entry) ? entry : {};
    return {
      name: volume.name,
      mountPath: volume.mount_path,
      hostPath: volume.host_path,
      ...(volume.read_only === undefined ? {} : { readOnly: volume.read_only }),
    };
  });
}

/**
 * drunc's `host_configs`: `{<host>: {limits, requests}}`, quantities stringified as drunc does
 * (`cpu: 64` is "64"); validation names a bad quantity later.
 */
function druncHostConfigs(raw: unknown, origin: string, problems: string[]): Tree | undefined {
  if (raw === undefined) return undefined;
  if (!isPlainObject(raw)) {
    problems.push(`${origin}: settings.host_configs: must map host names to {limits, requests}`);
    return undefined;
  }
  const stringified = (quantities: unknown) =>
    isPlainObject(quantities)
      ? Object.fromEntries(Object.entries(quantities).map(([k, v]) => [k, String(v)]))
      : quantities;
  return Object.fromEntries(
    Object.entries(raw).map(([host, config]) => [
      host,
      isPlainObject(config)
        ? Object.fromEntries(Object.entries(config).map(([k, v]) => [k, stringified(v)]))
        : config,
    ]),
  );
}

/**
 * drunc takes seconds as int or float; kpm counts whole seconds, so a fraction rounds up (a
 * timeout never shortens). Ports are whole numbers.
 */
function convert(value: unknown, kind: DruncSetting['kind']): unknown {
  if (kind === 'string') return typeof value === 'string' ? value : undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  if (kind === 'port') return Number.isInteger(value) ? value : undefined;
  return Math.ceil(value);
}

function expected(kind: DruncSetting['kind']): string {
  if (kind === 'string') return 'must be a string';
  if (kind === 'port') return 'must be an integer';
  return 'must be a number of seconds';
}

function valueAt(tree: Tree, path: string): unknown {
  let node: unknown = tree;
  for (const part of path.split('.')) {
    if (!isPlainObject(node)) return undefined;
    node = node[part];
  }
  return node;
}

function setAt(tree: Tree, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = tree;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(node[part])) node[part] = {};
    node = node[part] as Tree;
  }
  node[parts[parts.length - 1]] = value;
}
