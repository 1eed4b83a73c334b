import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { bundleCli, cliBundleCurrent } from './cli-bundle';
import { withFileLock } from './file-lock';
import { repoRoot } from './paths';

/**
 * Local services run compiled (`nest build`), as in production: tsc emits the decorator
 * metadata Nest's dependency injection and ValidationPipe rely on (tsx/esbuild does not).
 * A service is rebuilt when any TypeScript source of apps/<service> or libs/ is newer than its
 * entry file.
 */
export function serviceEntry(service: string): string {
  return join(repoRoot(), 'dist', 'apps', service, 'src', 'main.js');
}

export async function ensureServiceBuilt(
  service: string,
  onProgress: (message: string) => void = () => undefined,
): Promise<string> {
  const entry = serviceEntry(service);
  await withFileLock(`build-${service}`, async () => {
    if (isStale(service, entry)) await nestBuild(service, onProgress);
    // The CLI also runs as one file made from what nest built (cli-bundle.ts).
    if (service === 'cli' && !cliBundleCurrent()) await bundleCli();
  });
  return entry;
}

/** `nest build <service>` as a child process: the caller's event loop goes on (the demo builds meanwhile). */
async function nestBuild(service: string, onProgress: (message: string) => void): Promise<void> {
  onProgress(`building ${service}`);
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [require.resolve('@nestjs/cli/bin/nest.js'), 'build', service],
    { cwd: repoRoot(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const status = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (status !== 0) throw new Error(`kpm: nest build ${service} failed:\n${output}`);
  onProgress(`built ${service} in ${Date.now() - started} ms`);
}

function isStale(service: string, entry: string): boolean {
  if (!existsSync(entry)) return true;
  const built = statSync(entry).mtimeMs;
  const root = repoRoot();
  return [join(root, 'apps', service, 'src'), join(root, 'libs')].some((dir) =>
    newerSource(dir, built),
  );
}

function newerSource(dir: string, than: number): boolean {
  if (!existsSync(dir)) return false;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && newerSource(path, than)) return true;
    } else if (
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.spec.ts') &&
      statSync(path).mtimeMs > than
    ) {
      return true;
    }
  }
  return false;
}
