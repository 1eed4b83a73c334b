/**
 * The field rules of kpm's messages as reusable class-validator decorators.
 *
 * Each rule is a named constraint (the `name` given to `ValidateBy`) so that the schema
 * generator can translate it to JSON Schema by name (see `schema/constraint-schemas.ts`) and
 * the runtime library needs no schema package. Messages say *why* a value is refused without
 * repeating the property: the error's `path` already names it.
 */
import 'reflect-metadata';
import {
  IsInt,
  IsRFC3339,
  Matches,
  Max,
  Min,
  ValidateBy,
  type ValidationOptions,
} from 'class-validator';

/** RFC 1123 label (≤ 63 characters): session names become namespaces. */
export const DNS_LABEL = /^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_LABEL_MESSAGE =
  'must be a DNS-1123 label: at most 63 lower-case letters, digits or "-", starting and ending with a letter or digit';

/**
 * drunc's process names as drunc gives them (`dummy_boot_0`, `RU.01`, `ru-01`): 1 to 253
 * characters, none of them whitespace or a control character. drunc itself refuses no name;
 * kpm keeps names one word because drunc's shells print them in tables and its driver builds
 * log file names from them (`log_<user>_<session>_<name>.txt`). The pod's name derives from it
 * (`podNameOf`, libs/kube/src/pod-name.ts).
 */
// eslint-disable-next-line no-control-regex -- control characters are what the rule refuses
export const PROCESS_NAME = /^[^\s\x00-\x1f\x7f]{1,253}$/u;
const PROCESS_NAME_MESSAGE =
  'must be a process name of 1 to 253 characters without whitespace or control characters';

/** A user name as the DAQ records it (a Unix login or service account); also used in labels. */
export const USER_NAME = /^[A-Za-z0-9_]([A-Za-z0-9._-]{0,61}[A-Za-z0-9_])?$/;
export const USER_NAME_MESSAGE =
  'must be a user name of 1 to 63 letters, digits, "_", "." or "-", starting and ending with a letter, digit or "_"';

/** drunc's tree ids: `0`, `1`, `1.2`, `1.2.3` … (the role derives from the depth). */
export const TREE_ID = /^\d+(\.\d+)*$/;
const TREE_ID_MESSAGE = 'must be dot-separated numbers such as "0", "1", "1.2" or "1.2.3"';

/** POSIX portable environment variable names. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Kubernetes qualified names (label/annotation keys, resource names): `[prefix/]name`. */
const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
/** Kubernetes label values: empty, or at most 63 characters starting and ending alphanumeric. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;
/** Kubernetes resource quantities such as `500m`, `2`, `1.5Gi`, `64Mi`, `1e3`. */
export const QUANTITY = /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;
/** RFC 1123 subdomain: dot-separated DNS labels (node names, the label domain, Lease names). */
export const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** Node names in `allowedHosts`: DNS-1123 subdomains. */
export const HOSTNAME = DNS_SUBDOMAIN;
export const HOSTNAME_MAX = 253;

export const MAX_PATH_LENGTH = 4096;

export function IsDnsLabel(options?: ValidationOptions): PropertyDecorator {
  return Matches(DNS_LABEL, { message: DNS_LABEL_MESSAGE, ...options });
}

export function IsProcessName(options?: ValidationOptions): PropertyDecorator {
  return Matches(PROCESS_NAME, { message: PROCESS_NAME_MESSAGE, ...options });
}

export function IsUserName(options?: ValidationOptions): PropertyDecorator {
  return Matches(USER_NAME, { message: USER_NAME_MESSAGE, ...options });
}

/** CloudEvents `time` and every `…At` field: RFC 3339, kpm writes UTC with milliseconds. */
export function IsTimestamp(options?: ValidationOptions): PropertyDecorator {
  return IsRFC3339({
    message: 'must be an RFC 3339 timestamp such as 2026-11-22T10:00:00.000Z',
    ...options,
  });
}

/** A non-negative whole number of seconds up to `max` (grace periods, timeouts). */
export function IsSeconds(max: number): PropertyDecorator {
  return (target, key) => {
    IsInt({ message: 'must be a whole number of seconds' })(target, key);
    Min(0, { message: 'must not be negative' })(target, key);
    Max(max, { message: `must be at most ${max} seconds` })(target, key);
  };
}

/** The largest user or group id Kubernetes accepts for runAsUser / runAsGroup. */
export const MAX_LINUX_ID = 2147483647;

/** A Linux user or group id as Kubernetes takes it (0 to 2^31-1); policy narrows it further. */
export function IsLinuxId(): PropertyDecorator {
  return (target, key) => {
    IsInt({ message: 'must be a whole number' })(target, key);
    Min(0, { message: 'must not be negative' })(target, key);
    Max(MAX_LINUX_ID, { message: `must be at most ${MAX_LINUX_ID}` })(target, key);
  };
}

export function IsTreeId(options?: ValidationOptions): PropertyDecorator {
  return Matches(TREE_ID, { message: TREE_ID_MESSAGE, ...options });
}

/** Why a path may not be mounted or used as a directory, or `undefined` if it may. */
export function unsafePathReason(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0) return 'must be a non-empty string';
  if (value.length > MAX_PATH_LENGTH) return `must be at most ${MAX_PATH_LENGTH} characters`;
  if (!value.startsWith('/')) return 'must be an absolute path (start with "/")';
  if (value.includes('\0')) return 'must not contain a NUL character';
  // A `..` segment could climb out of the base directory the worker mounts (path traversal).
  if (value.split('/').includes('..')) return 'must not contain ".." segments (path traversal)';
  return undefined;
}

/** An absolute path without `..` segments (logsPath, dataMount, executionDirectory). */
export function IsSafeAbsolutePath(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isSafeAbsolutePath',
      validator: {
        validate: (value) => unsafePathReason(value) === undefined,
        defaultMessage: (args) => unsafePathReason(args?.value) ?? 'must be an absolute path',
      },
    },
    options,
  );
}

/**
 * Why a path may not be a process's log file (drunc's `process_logs_path`: its directory is
 * mounted and the output teed into it), or `undefined` if it may.
 */
export function logFileReason(value: unknown): string | undefined {
  const unsafe = unsafePathReason(value);
  if (unsafe !== undefined) return unsafe;
  const path = value as string;
  if (path.endsWith('/')) return 'must name a file, not a directory (no trailing "/")';
  if (path.lastIndexOf('/') === 0) return 'must be a file inside a directory, not at "/"';
  return undefined;
}

/** A log file: an absolute path without `..` segments, naming a file in a directory. */
export function IsLogFilePath(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isLogFilePath',
      validator: {
        validate: (value) => logFileReason(value) === undefined,
        defaultMessage: (args) => logFileReason(args?.value) ?? 'must be a file path',
      },
    },
    options,
  );
}

/** drunc's `data_mount: "."` (or `"./"`): the process's execution directory. */
export const EXECUTION_DIRECTORY_MOUNTS: readonly string[] = ['.', './'];

/** Why a data mount is refused: an absolute path without `..`, or `.` for the execution directory. */
export function dataMountReason(value: unknown): string | undefined {
  if (typeof value === 'string' && EXECUTION_DIRECTORY_MOUNTS.includes(value)) return undefined;
  const unsafe = unsafePathReason(value);
  return unsafe && `${unsafe}, or "." for the execution directory`;
}

/** `restriction.dataMount`: an absolute path without `..` segments, or `.` (drunc's). */
export function IsDataMount(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isDataMount',
      validator: {
        validate: (value) => dataMountReason(value) === undefined,
        defaultMessage: (args) => dataMountReason(args?.value) ?? 'must be a directory',
      },
    },
    options,
  );
}

/** How a map's keys and values are checked; the name doubles as the JSON Schema key. */
export interface StringMapRule {
  name:
    'isEnvMap' | 'isLabelMap' | 'isAnnotationMap' | 'isQuantityMap' | 'isHeaderMap' | 'isPodUidMap';
  keys: RegExp;
  keyMessage: string;
  values?: RegExp;
  valueMessage?: string;
  maxEntries: number;
}

export const STRING_MAP_RULES: Record<StringMapRule['name'], StringMapRule> = {
  isEnvMap: {
    name: 'isEnvMap',
    keys: ENV_NAME,
    keyMessage:
      'is not a valid environment variable name (letters, digits and "_", not starting with a digit)',
    maxEntries: 1000,
  },
  isLabelMap: {
    name: 'isLabelMap',
    keys: QUALIFIED_NAME,
    keyMessage: 'is not a valid Kubernetes label key',
    values: LABEL_VALUE,
    valueMessage:
      'is not a valid Kubernetes label value (at most 63 letters, digits, "-", "_", ".")',
    maxEntries: 64,
  },
  isAnnotationMap: {
    name: 'isAnnotationMap',
    keys: QUALIFIED_NAME,
    keyMessage: 'is not a valid Kubernetes annotation key',
    maxEntries: 64,
  },
  isQuantityMap: {
    name: 'isQuantityMap',
    keys: QUALIFIED_NAME,
    keyMessage: 'is not a valid Kubernetes resource name',
    values: QUANTITY,
    valueMessage: 'is not a Kubernetes quantity such as "500m", "2" or "1Gi"',
    maxEntries: 32,
  },
  isHeaderMap: {
    name: 'isHeaderMap',
    keys: /^.{1,256}$/s,
    keyMessage: 'is not a header name of 1 to 256 characters',
    maxEntries: 256,
  },
  isPodUidMap: {
    name: 'isPodUidMap',
    keys: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
    keyMessage: 'is not a process uuid',
    values: /^[-0-9A-Za-z]{1,128}$/,
    valueMessage: 'is not a pod uid (1 to 128 letters, digits and "-")',
    maxEntries: 100_000,
  },
};

/** Why a plain `{string: string}` map breaks `rule`, naming the offending key. */
function stringMapReason(value: unknown, rule: StringMapRule): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'must be an object of string values';
  }
  const entries = Object.entries(value);
  if (entries.length > rule.maxEntries) return `must have at most ${rule.maxEntries} entries`;
  for (const [key, v] of entries) {
    if (!rule.keys.test(key)) return `key ${JSON.stringify(key)} ${rule.keyMessage}`;
    if (typeof v !== 'string') return `value of ${JSON.stringify(key)} must be a string`;
    if (rule.values && !rule.values.test(v)) {
      return `value of ${JSON.stringify(key)} ${rule.valueMessage ?? 'is invalid'}`;
    }
  }
  return undefined;
}

/** A `{string: string}` map whose keys (and values) follow `rule`. */
export function IsStringMap(
  rule: StringMapRule['name'],
  options?: ValidationOptions,
): PropertyDecorator {
  const r = STRING_MAP_RULES[rule];
  return ValidateBy(
    {
      name: r.name,
      validator: {
        validate: (value) => stringMapReason(value, r) === undefined,
        defaultMessage: (args) => stringMapReason(args?.value, r) ?? 'is invalid',
      },
    },
    options,
  );
}

/** Kill stages: an array of arrays of process uuids, in shutdown order. */
export function IsUuidStages(options?: ValidationOptions): PropertyDecorator {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const ok = (value: unknown): boolean =>
    Array.isArray(value) &&
    value.every((s) => Array.isArray(s) && s.every((u) => typeof u === 'string' && uuid.test(u)));
  return ValidateBy(
    {
      name: 'isUuidStages',
      validator: {
        validate: ok,
        defaultMessage: () => 'must be an array of stages, each an array of process uuids',
      },
    },
    options,
  );
}
