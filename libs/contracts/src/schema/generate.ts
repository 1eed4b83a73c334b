/**
 * The generated documents as file contents: `docs/schemas/<type>.json` and `docs/asyncapi.yaml`.
 * The script writes them; a test regenerates them in memory and compares with the committed
 * files, so a contract change without `npm run generate` fails CI.
 */
import * as prettier from 'prettier';
import { stringify } from 'yaml';
import { EXAMPLE_EVENTS, EXAMPLE_RECORD_TYPES } from '../examples';
import { TOPIC_IDS } from '../topics';
import { asyncApiDocument } from './asyncapi';
import { eventJsonSchemas } from './json-schemas';

export const SCHEMAS_DIR = 'docs/schemas';
export const ASYNCAPI_FILE = 'docs/asyncapi.yaml';
export const EXAMPLES_DIR = 'examples/records';

/** Object keys sorted at every depth (arrays keep their order): output independent of code order. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
  );
}

async function format(text: string, filepath: string, root: string): Promise<string> {
  const config = (await prettier.resolveConfig(`${root}/${filepath}`)) ?? {};
  return prettier.format(text, { ...config, filepath });
}

/**
 * Path (relative to the repository root) → content, deterministic (no timestamps): the schemas,
 * the AsyncAPI document and one example record value per topic.
 */
export async function generatedFiles(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const [type, schema] of Object.entries(eventJsonSchemas())) {
    const path = `${SCHEMAS_DIR}/${type}.json`;
    files[path] = await format(JSON.stringify(sortKeys(schema)), path, root);
  }
  const yaml = stringify(sortKeys(asyncApiDocument()), {
    aliasDuplicateObjects: false,
    lineWidth: 0,
  });
  files[ASYNCAPI_FILE] = await format(yaml, ASYNCAPI_FILE, root);
  for (const topic of TOPIC_IDS) {
    const path = `${EXAMPLES_DIR}/${topic}.json`;
    files[path] = await format(
      JSON.stringify(EXAMPLE_EVENTS[EXAMPLE_RECORD_TYPES[topic]]),
      path,
      root,
    );
  }
  return files;
}
