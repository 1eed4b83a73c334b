import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** The repository root: the nearest ancestor holding nest-cli.json (works from src, dist and jest). */
export function repoRoot(start: string = __dirname): string {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, 'nest-cli.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`kpm: no nest-cli.json above ${start}`);
    dir = parent;
  }
}

/** True inside a kpm checkout; false for the CLI installed from a package (`npm pack`). */
export function insideCheckout(start: string = __dirname): boolean {
  try {
    repoRoot(start);
    return true;
  } catch {
    return false;
  }
}

/** Where the local stack keeps its state; ignored by git. KPM_HOME overrides it. */
export function kpmHome(): string {
  return process.env.KPM_HOME ? resolve(process.env.KPM_HOME) : join(repoRoot(), '.kpm');
}

/**
 * Where built binaries and downloaded jars are cached, keyed by version: outside the work tree
 * (`KPM_CACHE_DIR`, else `$XDG_CACHE_HOME/kpm`, else `~/.cache/kpm`) so a fresh clone — CI —
 * reuses them instead of compiling Kubernetes again.
 */
export function toolCache(): string {
  if (process.env.KPM_CACHE_DIR) return resolve(process.env.KPM_CACHE_DIR);
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kpm');
}

export const stackPaths = {
  home: () => kpmHome(),
  bin: () => join(toolCache(), 'bin'),
  logs: () => join(kpmHome(), 'logs'),
  run: () => join(kpmHome(), 'run'),
  data: (component: string) => join(kpmHome(), 'data', component),
  cache: (what: string) => join(toolCache(), what),
  envFile: () => join(kpmHome(), 'stack.env'),
  /** Files of ours that provisioning reads: stack/kafka, stack/kube, stack/node, stack/images. */
  source: (...parts: string[]) => join(repoRoot(), 'stack', ...parts),
  /** Any file of the checkout, e.g. scripts/debian-package.sh. */
  repo: (...parts: string[]) => join(repoRoot(), ...parts),
};
