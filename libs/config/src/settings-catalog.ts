/**
 * Every setting kpm reads, as one table drawn from the settings classes themselves (their
 * class-validator and class-transformer metadata and their defaults): its path, kind, unit and
 * default; its environment variable by one rule (`envName`); the variable it was known by before
 * that rule, if any; its old YAML name; drunc's name for it. `loadSettings` reads a variable for
 * every entry, and `docs/settings.md` is generated from it (settings-reference.ts), so a new
 * setting is documented and reachable from the environment as soon as it exists.
 */
import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import { BOOT_WORKER_ENV, IdRange, idRangeOf, RunAsIds, runAsIdsOf } from './boot-worker-settings';
import { DRUNC_SETTINGS } from './drunc-settings';
import { FEEDS_ENV } from './feeds-settings';
import { GATEWAY_ENV } from './gateway-settings';
import { HTTP_AUTH_ENV } from './http-auth-settings';
import { KAFKA_SECURITY_ENV } from './kafka-security-settings';
import { SECURITY_ENV } from './security-settings';
import { SETTING_ALIASES } from './setting-aliases';
import { KpmSettings } from './settings';
import { STATE_ENV } from './state-settings';
import { WATCHER_ENV } from './watcher-settings';
import { typeStorage } from '@kpm/contracts/validation/type-storage';

/** How a variable's text becomes the setting's value. */
export type SettingKind = 'number' | 'boolean' | 'string' | 'list' | 'range' | 'ids' | 'json';

export interface Setting {
  /** Where it is in `KPM_CONFIG`: `podManagement.killTimeoutSeconds`. */
  path: string;
  kind: SettingKind;
  /** From the name's suffix: `…Seconds`, `…Ms`, `…Bytes`. */
  unit?: 's' | 'ms' | 'bytes';
  /** The default (undefined: unset). */
  default: unknown;
  /** The variable by kpm's one rule: `KPM_` and the path in upper snake case. */
  env: string;
  /** The variable it was read from before the rule, still read (`KPM_KILL_TIMEOUT_SECONDS`). */
  establishedEnv?: string;
  /** Its old name in `KPM_CONFIG` and its old variable, still read (setting-aliases.ts). */
  oldPath?: string;
  oldEnv?: string;
  /** drunc's name in its process-manager configuration (drunc-settings.ts). */
  drunc?: string;
  /** The class and property that declare it, for the reference's descriptions. */
  declaredBy: { className: string; property: string };
}

/** Variables that name a setting although not by the rule; the rule's name is read as well. */
export const ESTABLISHED_ENV: ReadonlyArray<[string, string, (raw: string) => unknown]> = [
  ['KPM_KAFKA_BROKERS', 'kafka.brokers', commaList],
  ['KPM_TOPIC_PREFIX', 'kafka.topicPrefix', String],
  ['KPM_TOPIC_PARTITIONS', 'kafka.partitions', Number],
  ['KPM_TOPIC_REPLICATION_FACTOR', 'kafka.replicationFactor', Number],
  ['KPM_TOPIC_MIN_INSYNC_REPLICAS', 'kafka.minInsyncReplicas', Number],
  ['KPM_MAX_RECORD_BYTES', 'kafka.maxRecordBytes', Number],
  ...KAFKA_SECURITY_ENV,
  ['KPM_LABEL_DOMAIN', 'labels.domain', String],
  ['KPM_HTTP_PORT', 'http.port', Number],
  ['KPM_HTTP_HOST', 'http.host', String],
  ...HTTP_AUTH_ENV,
  ['KPM_INSTANCE', 'instance', String],
  ['KPM_LOG_FORMAT', 'logFormat', String],
  ...BOOT_WORKER_ENV,
  ...WATCHER_ENV,
  ...STATE_ENV,
  ...SECURITY_ENV,
  ...GATEWAY_ENV,
  ...FEEDS_ENV,
  ['KUBECONFIG', 'kubeconfig', String],
];

/** kpm's one rule: `podManagement.killTimeoutSeconds` → `KPM_POD_MANAGEMENT_KILL_TIMEOUT_SECONDS`. */
export function envName(path: string): string {
  const snake = path
    .split('.')
    .map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase())
    .join('_');
  return `KPM_${snake}`;
}

/** The text of a variable as the setting's value, by its kind; bad text is left for validation. */
export function fromEnv(kind: SettingKind, raw: string): unknown {
  switch (kind) {
    case 'number':
      return raw.trim() === '' ? raw : Number(raw);
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : raw;
    case 'list':
      return commaList(raw);
    case 'range':
      return idRangeOf(raw);
    case 'ids':
      return runAsIdsOf(raw);
    case 'json':
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        return raw;
      }
    case 'string':
      return raw;
  }
}

let catalog: readonly Setting[] | undefined;

/** Every setting, in the order of the classes' declarations. */
export function settingsCatalog(): readonly Setting[] {
  catalog ??= leaves(KpmSettings, '', new KpmSettings());
  return catalog;
}

type AnyClass = new () => object;

function leaves(cls: AnyClass, prefix: string, defaults: unknown): Setting[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const properties = [...new Set(metadata.map((m) => m.propertyName))];
  return properties.flatMap((property) => {
    const path = prefix ? `${prefix}.${property}` : property;
    // The service's own name, given by its main, not a setting an operator sets.
    if (path === 'service') return [];
    const own = metadata.filter((m) => m.propertyName === property);
    const value = (defaults as Record<string, unknown> | undefined)?.[property];
    const nested = typeStorage.findTypeMetadata(cls, property)?.typeFunction() as
      AnyClass | undefined;
    const isNested = own.some((m) => m.type === 'nestedValidation');
    const isArray = own.some((m) => m.name === 'isArray');
    // A range (`1000-60000`) and a uid and gid (`1000:1000`) are one value each.
    const single = nested === IdRange ? 'range' : nested === RunAsIds ? 'ids' : undefined;
    if (nested && isNested && !isArray && !single)
      return leaves(nested, path, value ?? new nested());
    const kind: SettingKind = single ?? (nested && isArray ? 'json' : kindOf(own, value));
    return [setting(path, kind, value, { className: cls.name, property })];
  });
}

function kindOf(own: ReadonlyArray<{ name?: string }>, value: unknown): SettingKind {
  const names = new Set(own.map((m) => m.name));
  if (names.has('isArray')) return 'list';
  if (names.has('isBoolean') || typeof value === 'boolean') return 'boolean';
  if (names.has('isInt') || names.has('isNumber') || typeof value === 'number') return 'number';
  return 'string';
}

function setting(
  path: string,
  kind: SettingKind,
  value: unknown,
  declaredBy: Setting['declaredBy'],
): Setting {
  const established = ESTABLISHED_ENV.find(([name, p]) => p === path && name !== envName(path));
  const alias = SETTING_ALIASES.find((a) => a.path === path);
  const drunc = DRUNC_SETTINGS.find((d) => d.kpm === path);
  return {
    path,
    kind,
    unit: unitOf(path),
    default: value,
    env: envName(path),
    ...(established ? { establishedEnv: established[0] } : {}),
    ...(alias ? { oldPath: alias.oldPath, ...(alias.oldEnv ? { oldEnv: alias.oldEnv } : {}) } : {}),
    ...(drunc ? { drunc: drunc.drunc } : {}),
    declaredBy,
  };
}

function unitOf(path: string): Setting['unit'] {
  if (/Seconds$/.test(path)) return 's';
  if (/Ms$/.test(path)) return 'ms';
  if (/Bytes$/.test(path)) return 'bytes';
  return undefined;
}

function commaList(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
