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

const STATIC_DIR = join(__dirname, 'static');

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

/** The snapshot's preload hint in index.html (one `<link rel="preload" …>` element). */
const SNAPSHOT_PRELOAD = /\s*<link rel="preload" href="\/v1\/dashboard\/snapshot"[^>]*>/;

/**
 * The files with index.html's snapshot preload taken out: a preload sends no Authorization
 * header, so with `http.auth` on it would only earn a 401 (and the page fetches with its token).
 */
export function withoutSnapshotPreload(
  assets: Map<string, DashboardAsset>,
): Map<string, DashboardAsset> {
  const page = assets.get('index.html')!;
  const html = page.body.toString('utf8');
  if (!SNAPSHOT_PRELOAD.test(html)) throw new Error("index.html's snapshot preload is gone");
  return new Map(assets).set('index.html', {
    ...page,
    body: Buffer.from(html.replace(SNAPSHOT_PRELOAD, ''), 'utf8'),
  });
}
