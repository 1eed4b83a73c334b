import { isPlainObject } from './plain-object';

/**
 * Old names of renamed settings, read on input only. Durations carry their unit in the name;
 * drunc's unitless names (kill_timeout → `killTimeout`, …) and the variables named after them are
 * still accepted, so a configuration written for drunc or an earlier kpm keeps working. Giving an
 * old and a new name of one setting at once is an error naming both.
 */
interface SettingAlias {
  /** The setting's path today. */
  path: string;
  /** Its old path in the YAML file. */
  oldPath: string;
  /** Its old environment variable, if it had one. */
  oldEnv?: string;
}

export const SETTING_ALIASES: readonly SettingAlias[] = [
  {
    path: 'podManagement.killTimeoutSeconds',
    oldPath: 'podManagement.killTimeout',
    oldEnv: 'KPM_KILL_TIMEOUT',
  },
  {
    path: 'podManagement.podReadyTimeoutSeconds',
    oldPath: 'podManagement.podReadyTimeout',
    oldEnv: 'KPM_POD_READY_TIMEOUT',
  },
  { path: 'podManagement.hostCacheExpirySeconds', oldPath: 'podManagement.hostCacheExpiry' },
  {
    path: 'podManagement.restartCleanupSeconds',
    oldPath: 'podManagement.restartCleanupTime',
    oldEnv: 'KPM_RESTART_CLEANUP_TIME',
  },
  {
    path: 'podManagement.namespaceCleanupTimeoutSeconds',
    oldPath: 'podManagement.namespaceCleanupTimeout',
  },
  {
    path: 'podManagement.killEscalationMarginSeconds',
    oldPath: 'podManagement.killEscalationMargin',
  },
  { path: 'podManagement.forcedKillWaitSeconds', oldPath: 'podManagement.forcedKillWait' },
  { path: 'podManagement.apiRetryDeadlineSeconds', oldPath: 'podManagement.apiRetryDeadline' },
  { path: 'watcher.watcherRetrySleepSeconds', oldPath: 'watcher.watcherRetrySleep' },
];

type Tree = Record<string, unknown>;
type Env = Record<string, string | undefined>;

/**
 * Moves every old key of `tree` (a parsed YAML file) to its new name, in place; returns the
 * settings given under both names. `origin` prefixes each problem (the file's name).
 */
export function renameOldKeys(tree: Tree, origin: string): string[] {
  const problems: string[] = [];
  for (const { path, oldPath } of SETTING_ALIASES) {
    const section = sectionOf(tree, oldPath);
    const oldKey = lastPart(oldPath);
    if (!section || !(oldKey in section)) continue;
    const newKey = lastPart(path);
    if (newKey in section) {
      problems.push(`${origin}: ${bothGiven(oldPath, path)}`);
      continue;
    }
    section[newKey] = section[oldKey];
    delete section[oldKey];
  }
  return problems;
}

/**
 * The environment with each old variable given under its new name (`envNameOf` finds a
 * setting's variable), and the settings given under both names.
 */
export function renameOldVariables(
  env: Env,
  envNameOf: (path: string) => string | undefined,
): { env: Env; problems: string[] } {
  const renamed: Env = { ...env };
  const problems: string[] = [];
  for (const { path, oldEnv } of SETTING_ALIASES) {
    const newEnv = envNameOf(path);
    if (!oldEnv || !newEnv || !isSet(env[oldEnv])) continue;
    if (isSet(env[newEnv])) problems.push(bothGiven(oldEnv, newEnv));
    else renamed[newEnv] = env[oldEnv];
    delete renamed[oldEnv];
  }
  return { env: renamed, problems };
}

function bothGiven(oldName: string, newName: string): string {
  return `${oldName} and ${newName} are one setting (${oldName} is its old name): give only ${newName}`;
}

function sectionOf(tree: Tree, path: string): Tree | undefined {
  let node: unknown = tree;
  for (const part of path.split('.').slice(0, -1)) {
    if (!isPlainObject(node)) return undefined;
    node = node[part];
  }
  return isPlainObject(node) ? node : undefined;
}

function lastPart(path: string): string {
  return path.slice(path.lastIndexOf('.') + 1);
}

function isSet(raw: string | undefined): raw is string {
  return raw !== undefined && raw !== '';
}
