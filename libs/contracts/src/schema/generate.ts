/**
 * The generated documents as file contents: `docs/schemas/<type>.json` and `docs/asyncapi.yaml`.
 * The script writes them; a test regenerates them in memory and compares with the committed
 * files, so a contract change without `npm run generate` fails CI.
 */
import { execFileSync } from 'node:child_process';
import { stringify } from 'yaml';
import { EXAMPLE_EVENTS, EXAMPLE_RECORD_TYPES } from '../examples';
import { TOPIC_IDS } from '../topics';
import { asyncApiDocument } from './asyncapi';
import { eventJsonSchemas } from './json-schemas';

export const SCHEMAS_DIR = 'docs/schemas';
export const ASYNCAPI_FILE = 'docs/asyncapi.yaml';
export const EXAMPLES_DIR = 'examples/records';

/** Object keys sorted at every depth (arrays keep their order): output independent of code order. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
  );
}

/**
 * Formats the files with the repository's Prettier settings, so `prettier --check` passes on
 * them. Prettier 3 loads its core with a dynamic import, which jest's CommonJS runtime cannot
 * do, so one plain Node process formats every file at once.
 */
export function formatWithPrettier(
  files: Record<string, string>,
  root: string,
): Record<string, string> {
  const script = `
    const prettier = require('prettier');
    const files = JSON.parse(require('fs').readFileSync(0, 'utf8'));
    (async () => {
      const out = {};
      for (const [path, text] of Object.entries(files)) {
        const config = (await prettier.resolveConfig(path)) ?? {};
        out[path] = await prettier.format(text, { ...config, filepath: path });
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const output = execFileSync(process.execPath, ['-e', script], {
    cwd: root,
    input: JSON.stringify(files),
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(output.toString('utf8')) as Record<string, string>;
}

/**
 * Path (relative to the repository root) → content, deterministic (no timestamps): the schemas,
 * the AsyncAPI document and one example record value per topic.
 */
export function generatedFiles(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [type, schema] of Object.entries(eventJsonSchemas())) {
    const path = `${SCHEMAS_DIR}/${type}.json`;
    files[path] = JSON.stringify(sortKeys(schema));
  }
  const yaml = stringify(sortKeys(asyncApiDocument()), {
    aliasDuplicateObjects: false,
    lineWidth: 0,
  });
  files[ASYNCAPI_FILE] = yaml;
  for (const topic of TOPIC_IDS) {
    const path = `${EXAMPLES_DIR}/${topic}.json`;
    files[path] = JSON.stringify(EXAMPLE_EVENTS[EXAMPLE_RECORD_TYPES[topic]]);
  }
  return formatWithPrettier(files, root);
}
