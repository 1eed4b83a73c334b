import { InvalidSettingsError, loadSettings } from './load-settings';
import { envName, fromEnv, settingsCatalog, type Setting } from './settings-catalog';

/**
 * The value at `path` of the settings loaded with `env`, or the problems naming `path` or its
 * section (a leaf of an optional section, set alone, makes the section's other fields missing).
 */
function read(env: Record<string, string>, path: string): { value?: unknown; problems?: string[] } {
  try {
    const settings = loadSettings('test', env) as unknown as Record<string, unknown>;
    return {
      value: path
        .split('.')
        .reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], settings),
    };
  } catch (error) {
    if (!(error instanceof InvalidSettingsError)) throw error;
    const section = path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : '';
    const names = (p: string) => p.includes(path) || (section !== '' && p.startsWith(section));
    return { problems: error.problems.filter(names) };
  }
}

/** A text each kind of setting takes; a setting that refuses it must say so by name. */
const SAMPLE: Record<Setting['kind'], [string, unknown]> = {
  number: ['7', 7],
  boolean: ['true', true],
  string: ['sample-1', 'sample-1'],
  list: ['a, b', ['a', 'b']],
  range: ['1000-2000', { min: 1000, max: 2000 }],
  ids: ['1000:2000', { uid: 1000, gid: 2000 }],
  json: ['[]', []],
};

describe('settings catalog', () => {
  it.each<[string, string]>([
    ['podManagement.killTimeoutSeconds', 'KPM_POD_MANAGEMENT_KILL_TIMEOUT_SECONDS'],
    ['kafka.ssl.caFile', 'KPM_KAFKA_SSL_CA_FILE'],
    ['state.snapshotEveryRecords', 'KPM_STATE_SNAPSHOT_EVERY_RECORDS'],
    ['http.auth.jwksUrl', 'KPM_HTTP_AUTH_JWKS_URL'],
    ['logFormat', 'KPM_LOG_FORMAT'],
  ])('names %s by the one rule: %s', (path, env) => {
    expect(envName(path)).toBe(env);
  });

  it.each(settingsCatalog().map((s) => [s.path, s] as const))(
    '%s is reachable by its variable',
    (path, setting) => {
      const [raw, value] = SAMPLE[setting.kind];
      const outcome = read({ [setting.env]: raw }, path);
      // Either the setting took the value, or validation refused it naming the setting.
      if (outcome.problems) expect(outcome.problems.length).toBeGreaterThan(0);
      else expect(outcome.value).toEqual(value);
    },
  );

  it.each(
    settingsCatalog()
      .filter((s) => s.establishedEnv)
      .map((s) => [s.establishedEnv!, s] as const),
  )('%s, the earlier name, still sets it', (_, setting) => {
    const [raw, value] = SAMPLE[setting.kind];
    const outcome = read({ [setting.establishedEnv!]: raw }, setting.path);
    if (outcome.problems) expect(outcome.problems.length).toBeGreaterThan(0);
    else expect(outcome.value).toEqual(value);
  });

  it('refuses one setting given by both its variables, naming them', () => {
    expect(() =>
      loadSettings('test', {
        KPM_KILL_TIMEOUT_SECONDS: '10',
        KPM_POD_MANAGEMENT_KILL_TIMEOUT_SECONDS: '20',
      }),
    ).toThrow(
      'KPM_KILL_TIMEOUT_SECONDS and KPM_POD_MANAGEMENT_KILL_TIMEOUT_SECONDS are one setting: give only one of them',
    );
  });

  it.each<[Setting['kind'], string, unknown]>([
    ['number', '30', 30],
    ['number', 'thirty', NaN],
    ['boolean', 'false', false],
    ['boolean', 'yes', 'yes'],
    ['list', ' a ,b,, ', ['a', 'b']],
    ['range', '1-9', { min: 1, max: 9 }],
    ['ids', '1000:2000', { uid: 1000, gid: 2000 }],
    ['ids', '1000', { uid: NaN, gid: NaN }],
    ['json', '[{"name": "log"}]', [{ name: 'log' }]],
    ['json', '{nope', '{nope'],
  ])('reads a %s from %j', (kind, raw, value) => {
    expect(fromEnv(kind, raw)).toEqual(value);
  });

  it('knows every setting once, with its unit from its name', () => {
    const paths = settingsCatalog().map((s) => s.path);
    expect(new Set(paths).size).toBe(paths.length);
    const units = Object.fromEntries(settingsCatalog().map((s) => [s.path, s.unit]));
    expect(units).toMatchObject({
      'podManagement.killTimeoutSeconds': 's',
      'state.transactionTimeoutMs': 'ms',
      'kafka.maxRecordBytes': 'bytes',
      'kafka.partitions': undefined,
    });
  });
});
