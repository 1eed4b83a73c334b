import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A `KPM_CONFIG` file holding `text`, for the settings specs. */
export function yamlFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'kpm-config-')), 'kpm.yaml');
  writeFileSync(file, text);
  return file;
}
