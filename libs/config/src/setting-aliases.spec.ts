import { InvalidSettingsError, loadSettings } from './load-settings';
import { SETTING_ALIASES } from './setting-aliases';
import { yamlFile } from './yaml-file.spec-helper';

/** `a.b: 7` as YAML. */
function yamlSetting(path: string, value: number): string {
  const [section, key] = path.split('.');
  return `${section}:\n  ${key}: ${value}\n`;
}

function valueAt(settings: object, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], settings);
}

describe('old names of renamed settings', () => {
  describe.each(SETTING_ALIASES)('$oldPath → $path', ({ path, oldPath }) => {
    it('loads the same value under either name', () => {
      const byOld = loadSettings('boot-worker', { KPM_CONFIG: yamlFile(yamlSetting(oldPath, 7)) });
      const byNew = loadSettings('boot-worker', { KPM_CONFIG: yamlFile(yamlSetting(path, 7)) });
      expect(valueAt(byOld, path)).toBe(7);
      expect(valueAt(byNew, path)).toBe(7);
      expect(valueAt(byOld, oldPath)).toBeUndefined();
    });

    it('rejects both names at once, naming both', () => {
      const file = yamlFile(`${yamlSetting(oldPath, 7)}  ${path.split('.')[1]}: 8\n`);
      expect(() => loadSettings('boot-worker', { KPM_CONFIG: file })).toThrow(InvalidSettingsError);
      expect(() => loadSettings('boot-worker', { KPM_CONFIG: file })).toThrow(
        `${oldPath} and ${path} are one setting`,
      );
    });
  });

  const variables = [
    ['KPM_KILL_TIMEOUT', 'KPM_KILL_TIMEOUT_SECONDS', 'podManagement.killTimeoutSeconds'],
    [
      'KPM_POD_READY_TIMEOUT',
      'KPM_POD_READY_TIMEOUT_SECONDS',
      'podManagement.podReadyTimeoutSeconds',
    ],
    [
      'KPM_RESTART_CLEANUP_TIME',
      'KPM_RESTART_CLEANUP_SECONDS',
      'podManagement.restartCleanupSeconds',
    ],
  ];

  it('has a case below for every old variable', () => {
    const oldVariables = SETTING_ALIASES.flatMap((alias) => alias.oldEnv ?? []);
    expect(oldVariables.sort()).toEqual(variables.map(([oldEnv]) => oldEnv).sort());
  });

  it.each(variables)('reads the old variable %s as %s', (oldEnv, newEnv, path) => {
    expect(valueAt(loadSettings('boot-worker', { [oldEnv]: '9' }), path)).toBe(9);
    expect(valueAt(loadSettings('boot-worker', { [newEnv]: '9' }), path)).toBe(9);
    expect(() => loadSettings('boot-worker', { [oldEnv]: '9', [newEnv]: '10' })).toThrow(
      `${oldEnv} and ${newEnv} are one setting`,
    );
  });

  it('lets a variable under the new name override the file under the old name', () => {
    const file = yamlFile('podManagement:\n  killTimeout: 10\n');
    const settings = loadSettings('boot-worker', {
      KPM_CONFIG: file,
      KPM_KILL_TIMEOUT_SECONDS: '12',
    });
    expect(settings.podManagement.killTimeoutSeconds).toBe(12);
  });

  it('validates a value given under its old name, naming the new one', () => {
    const file = yamlFile('podManagement:\n  podReadyTimeout: 0\n');
    expect(() => loadSettings('boot-worker', { KPM_CONFIG: file })).toThrow(
      /podManagement\.podReadyTimeoutSeconds: podReadyTimeoutSeconds must not be less than 1/,
    );
  });
});
