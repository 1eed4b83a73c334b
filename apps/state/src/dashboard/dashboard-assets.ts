/**
 * The dashboard's files (`static/`): plain HTML, CSS and ES modules, served as they are — no
 * build step, nothing fetched from outside the machine. Read once at start; the build copies
 * them beside the compiled code (nest-cli.json `assets`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

export interface DashboardAsset {
  contentType: string;
  body: Buffer;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export const STATIC_DIR = join(__dirname, 'static');

/** Every servable file of `dir` by name; a file of an unknown kind is not served. */
export function loadAssets(dir: string = STATIC_DIR): Map<string, DashboardAsset> {
  const assets = new Map<string, DashboardAsset>();
  for (const name of readdirSync(dir)) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (contentType) assets.set(name, { contentType, body: readFileSync(join(dir, name)) });
  }
  if (!assets.has('index.html')) throw new Error(`the dashboard's index.html is missing in ${dir}`);
  return assets;
}
