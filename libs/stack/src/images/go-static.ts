import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Progress } from '../kube/go-build';
import { stackPaths } from '../paths';
import { fingerprint, hashTree } from './fingerprint';
import { runTool, timedStep } from './image-tools';

/** Where kpm's own programs for images live: stack/images/<name>, each a Go module. */
export const imageSourceDir = (name: string): string => stackPaths.source('images', name);

/**
 * Builds stack/images/<name> as a static, reproducible binary (CGO_ENABLED=0, -trimpath, no
 * build id, no VCS stamp), cached in the tool cache by the fingerprint of its sources and Go's
 * version; returns its path. Modules come from the Go module proxy.
 */
export async function ensureStaticGoBinary(name: string, progress: Progress): Promise<string> {
  const go = process.env.KPM_GO ?? 'go';
  const moduleDir = imageSourceDir(name);
  const goVersion = (await runTool(go, ['env', 'GOVERSION'])).trim();
  const key = fingerprint('go-static/1', goVersion, hashTree(moduleDir)).slice(0, 16);
  const dir = stackPaths.cache(join('images', 'bin'));
  const target = join(dir, `${name}-${key}`);
  if (existsSync(target)) return target;
  mkdirSync(dir, { recursive: true });
  const partial = `${target}.partial-${process.pid}`;
  try {
    await timedStep(progress, `${name}: go build (static, ${goVersion})`, () =>
      runTool(
        go,
        ['build', '-trimpath', '-buildvcs=false', '-ldflags=-s -w -buildid=', '-o', partial, '.'],
        {
          cwd: moduleDir,
          env: { CGO_ENABLED: '0' },
        },
      ),
    );
    renameSync(partial, target);
  } finally {
    rmSync(partial, { force: true });
  }
  return target;
}
