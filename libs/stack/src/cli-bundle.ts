import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths';

/**
 * The compiled CLI as one file. Node spends most of a CLI's start resolving and reading the
 * ~870 files of the compiled CLI and its dependencies (0.69 s of a `kpm ps`, 2026-11-28); one
 * file bundled from the compiled output (tsc's decorator metadata kept) loads in 0.39 s.
 * Left outside, loaded from node_modules when used: what the CLI loads lazily (the Kubernetes
 * client for `ps --live`, the tracing SDK, the pattern engine) and what is found by path.
 * OpenTelemetry's API is inside: every command loads it, and from node_modules its files took
 * 40 ms of a `kpm boot`; the SDK, outside, registers with it through the API's global (one
 * package version, one global).
 */
export const CLI_BUNDLE_EXTERNAL = [
  '@kubernetes/client-node',
  '@nestjs/cli',
  '@opentelemetry/context-*',
  '@opentelemetry/exporter-*',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-*',
  're2js',
] as const;

/** What `nest build cli` makes, and the bundle is made from. */
function compiledCliPath(root: string): string {
  return join(root, 'dist', 'apps', 'cli', 'src', 'main.js');
}

export function cliBundlePath(root: string = repoRoot()): string {
  return join(root, 'dist', 'apps', 'cli', 'kpm.js');
}

/** Bundles `dist/apps/cli/src/main.js` (built by `nest build cli`) into `cliBundlePath()`. */
export async function bundleCli(root: string = repoRoot()): Promise<string> {
  const entry = compiledCliPath(root);
  if (!existsSync(entry)) throw new Error(`kpm: ${entry} is not built: run nest build cli first`);
  const { build } = await import('esbuild');
  const outfile = cliBundlePath(root);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20', // package.json's engines
    format: 'cjs',
    external: [...CLI_BUNDLE_EXTERNAL],
    logLevel: 'error',
  });
  return outfile;
}

/** Whether the bundle is at least as new as the compiled CLI it was made from. */
export function cliBundleCurrent(root: string = repoRoot()): boolean {
  const bundle = cliBundlePath(root);
  return existsSync(bundle) && statSync(bundle).mtimeMs >= statSync(compiledCliPath(root)).mtimeMs;
}
