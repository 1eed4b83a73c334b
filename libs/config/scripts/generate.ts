/** `npm run generate` (second half): writes docs/settings.md from the settings classes. */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatWithPrettier } from '@kpm/contracts/schema/generate';
import { settingsReference, SETTINGS_REFERENCE_FILE } from '../src/settings-reference';

const root = resolve(__dirname, '../../..');
const files = formatWithPrettier({ [SETTINGS_REFERENCE_FILE]: settingsReference(root) }, root);
writeFileSync(join(root, SETTINGS_REFERENCE_FILE), files[SETTINGS_REFERENCE_FILE]);
console.log(`wrote ${SETTINGS_REFERENCE_FILE}`);
