/**
 * drunc's process-manager configuration as-is: a `KPM_CONFIG` file holding drunc's `settings`
 * document (the K8sProcessManager's nested `labels`, `pod_management`, `cleanup`, `checking`,
 * `service`, `volumes`, `home_path_base`, `readout_app_selector`) loads unchanged, each setting
 * given its kpm name and, when absent, drunc's default — so a drunc deployment behaves as it did
 * (restart_cleanup_time 10, not kpm's own 30). The rest of drunc's configuration (`type`, `name`,
 * `broadcaster`, `authoriser`, …) is not the process manager's to read and is left aside, as
 * drunc's settings loader discards what it does not know. kpm's own names in the same file win.
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
];

/**
 * drunc settings kpm reads but has no use for: drunc polls where kpm watches
 * (`restart_cleanup_polling`, `kill_watch_fallback_poll_interval`, `pod_status_check_sleep`), and
 * the controllers' gRPC start-up wait and per-host resources (`host_configs`: kpm's readout
 * profile is one for every host, `podManagement.readoutProfile`) are not kpm's yet.
 */
export const DRUNC_SETTINGS_WITHOUT_EFFECT: readonly string[] = [
  'cleanup.restart_cleanup_polling',
  'cleanup.kill_watch_fallback_poll_interval',
  'checking.pod_status_check_sleep',
  'checking.service_startup_timeout',
  'checking.grpc_startup_timeout',
  'host_configs',
];

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
