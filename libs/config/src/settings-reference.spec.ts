import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatWithPrettier } from '@kpm/contracts/schema/generate';
import { settingsCatalog } from './settings-catalog';
import { SETTINGS_REFERENCE_FILE, settingsReference } from './settings-reference';

const ROOT = resolve(__dirname, '../../..');

describe('docs/settings.md', () => {
  let generated: string;
  beforeAll(() => {
    const text = settingsReference(ROOT);
    generated = formatWithPrettier({ [SETTINGS_REFERENCE_FILE]: text }, ROOT)[
      SETTINGS_REFERENCE_FILE
    ];
  }, 60_000);

  it('is committed as generated (else: run npm run generate)', () => {
    const committed = readFileSync(join(ROOT, SETTINGS_REFERENCE_FILE), 'utf8');
    if (committed !== generated)
      throw new Error(`${SETTINGS_REFERENCE_FILE} is stale: run npm run generate`);
  });

  it('documents every setting, with its variable and what it does', () => {
    for (const setting of settingsCatalog()) {
      const row = generated.split('\n').find((line) => line.startsWith(`| \`${setting.path}\``));
      expect([setting.path, row]).toEqual([setting.path, expect.stringContaining(setting.env)]);
      const what = row!
        .split(' | ')
        .at(-1)!
        .replace(/\|\s*$/, '')
        .trim();
      expect([setting.path, what.length > 0]).toEqual([setting.path, true]);
    }
  });
});
