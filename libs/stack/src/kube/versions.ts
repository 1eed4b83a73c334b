import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stackPaths } from '../paths';

/** kwok is `go install`ed at this tag (it has no replace directives). */
export const KWOK_VERSION = 'v0.8.0';

/** The wrapper modules under stack/kube pin etcd and Kubernetes; their go.mod is the source of truth. */
export const etcdModuleDir = (): string => stackPaths.source('kube', 'etcd');

export function etcdVersion(): string {
  return requiredVersion(etcdModuleDir(), 'go.etcd.io/etcd/server/v3');
}

/** The version a go.mod requires of `modulePath` (single-line or block form). */
export function requiredVersion(moduleDir: string, modulePath: string): string {
  const goMod = readFileSync(join(moduleDir, 'go.mod'), 'utf8');
  const escaped = modulePath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm').exec(goMod);
  if (!match) throw new Error(`kpm: ${moduleDir}/go.mod does not require ${modulePath}`);
  return match[1];
}

/**
 * Kueue is `go install`ed at this tag (no replace directives); its CRDs and webhook manifests are
 * read from the same module in Go's module cache.
 */
export const KUEUE_VERSION = 'v0.17.0';
