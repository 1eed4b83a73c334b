/**
 * `npm run generate`: writes the JSON Schemas and the AsyncAPI document from the contract
 * classes (logic in libs/contracts/src/schema) and removes schemas of types that no longer exist.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import '../src';
import { generatedFiles, SCHEMAS_DIR } from '../src/schema/generate';

function main(): void {
  const root = resolve(__dirname, '../../..');
  const files = generatedFiles(root);
  mkdirSync(join(root, SCHEMAS_DIR), { recursive: true });
  for (const name of readdirSync(join(root, SCHEMAS_DIR))) {
    if (!files[`${SCHEMAS_DIR}/${name}`]) rmSync(join(root, SCHEMAS_DIR, name));
  }
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
    console.log(`wrote ${path}`);
  }
}

main();
