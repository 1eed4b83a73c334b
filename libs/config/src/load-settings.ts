import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { parse as parseYaml } from 'yaml';
import { logEvent, type LogEvent } from '@kpm/common';
import { httpAuthProblems } from './http-auth-settings';
import { secretValueProblems } from './kafka-security-settings';
import {
  druncConfigurationReport,
  fromDruncConfiguration,
  isDruncConfiguration,
} from './drunc-settings';
import { isPlainObject } from './plain-object';
import { renameOldKeys, renameOldVariables } from './setting-aliases';
import { KpmSettings } from './settings';
import { ESTABLISHED_ENV, fromEnv, settingsCatalog } from './settings-catalog';

/** Raised at start when configuration is wrong; its message names every offending setting. */
export class InvalidSettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid kpm configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'InvalidSettingsError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Environment variables that override the YAML file, by setting path: every setting's variable by
 * the one rule (settings-catalog.ts), and the variables some had before it.
 */
function envOverrides(): ReadonlyArray<[string, string, (raw: string) => unknown]> {
  const established = new Set(ESTABLISHED_ENV.map(([name]) => name));
  return [
    ...ESTABLISHED_ENV,
    ...settingsCatalog()
      .filter(({ env }) => !established.has(env))
      .map(({ env, path, kind }): [string, string, (raw: string) => unknown] => [
        env,
        path,
        (raw) => fromEnv(kind, raw),
      ]),
  ];
}

/**
 * Settings from defaults (drunc's), then the YAML file named by KPM_CONFIG, then KPM_* variables.
 * `service` names the caller; `defaults` lets each service set its own port. Old names of
 * renamed settings are read as their new names (setting-aliases.ts); a file holding drunc's
 * process-manager configuration is read as drunc's settings (drunc-settings.ts).
 */
export function loadSettings(
  service: string,
  givenEnv: Env = process.env,
  defaults: object = {},
): KpmSettings {
  const merged: Record<string, unknown> = deepMerge(
    { service, instance: `${hostname()}-${process.pid}` },
    defaults,
  );
  const { env, problems } = renameOldVariables(givenEnv, envNameOf);
  if (env.KPM_CONFIG) problems.push(...mergeFile(merged, env.KPM_CONFIG));
  problems.push(...secretValueProblems(env), ...namedTwice(env));
  if (problems.length > 0) throw new InvalidSettingsError(problems);
  for (const [name, path, convert] of envOverrides()) {
    const raw = env[name];
    if (raw !== undefined && raw !== '') setPath(merged, path, convert(raw));
  }
  const settings = plainToInstance(KpmSettings, merged, { exposeDefaultValues: true });
  const errors = validateSync(settings, { whitelist: true, forbidNonWhitelisted: true });
  const invalid = [...flatten(errors), ...httpAuthProblems(settings.http.auth)];
  if (invalid.length > 0) throw new InvalidSettingsError(invalid);
  return settings;
}

/** The KPM_CONFIG file over `merged`: kpm's own, or drunc's process-manager configuration. */
function mergeFile(merged: Record<string, unknown>, path: string): string[] {
  const file = readYaml(path);
  const origin = `KPM_CONFIG (${path})`;
  if (!isDruncConfiguration(file)) {
    const problems = renameOldKeys(file, origin);
    deepMerge(merged, file);
    return problems;
  }
  const { fromDrunc, own, problems } = fromDruncConfiguration(file, origin);
  problems.push(...renameOldKeys(own, origin));
  deepMerge(merged, fromDrunc);
  deepMerge(merged, own);
  return problems;
}

/**
 * What the boot-worker logs at start of a drunc configuration file in `KPM_CONFIG`: the keys
 * applied, then each key without effect (and why) and each unknown one (drunc warns and discards
 * those), one event each. Nothing for a file of kpm's own or none.
 */
export function druncConfigurationEvents(env: Env = process.env): LogEvent[] {
  const file = env.KPM_CONFIG;
  if (!file) return [];
  const content = readYaml(file);
  if (!isDruncConfiguration(content)) return [];
  const { applied, withoutEffect, unknown } = druncConfigurationReport(content);
  return [
    logEvent('drunc_config.applied', { file, keys: applied }),
    ...withoutEffect.map(({ key, reason }) =>
      logEvent('drunc_config.no_effect', { file, key, reason }),
    ),
    ...unknown.map((key) => logEvent('drunc_config.discarded', { file, key })),
  ];
}

/** The variable an old variable is read as: the one the setting had before the rule, else the rule's. */
function envNameOf(path: string): string | undefined {
  return (
    ESTABLISHED_ENV.find(([, settingPath]) => settingPath === path)?.[0] ??
    settingsCatalog().find((setting) => setting.path === path)?.env
  );
}

/** A setting given by both its variables (the rule's and the one from before) is an error. */
function namedTwice(env: Record<string, string | undefined>): string[] {
  return settingsCatalog().flatMap(({ env: name, establishedEnv }) => {
    const both = establishedEnv && isSet(env[name]) && isSet(env[establishedEnv]);
    return both ? [`${establishedEnv} and ${name} are one setting: give only one of them`] : [];
  });
}

function isSet(value: string | undefined): boolean {
  return value !== undefined && value !== '';
}

function readYaml(file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new InvalidSettingsError([`KPM_CONFIG (${file}): ${(error as Error).message}`]);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InvalidSettingsError([
      `KPM_CONFIG (${file}): the file must hold a mapping of settings`,
    ]);
  }
  return parsed as Record<string, unknown>;
}

function flatten(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => `${path}: ${message}`);
    return [...own, ...flatten(error.children ?? [], path)];
  });
}

function deepMerge(target: Record<string, unknown>, source: object): Record<string, unknown> {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key];
    if (isPlainObject(value) && isPlainObject(current)) deepMerge(current, value);
    else target[key] = isPlainObject(value) ? deepMerge({}, value) : value;
  }
  return target;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(node[part])) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]] = value;
}
