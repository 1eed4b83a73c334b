import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureGoModuleBuild } from '@kpm/stack';
import type { RawLimit } from './results';

const moduleDir = join(__dirname, '..', 'rawlimit');

/** The sources' hash names the binary: an edited program is rebuilt, an unchanged one reused. */
function sourceVersion(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(moduleDir).sort()) {
    if (/\.(go|mod|sum)$/.test(file)) hash.update(file).update(readFileSync(join(moduleDir, file)));
  }
  return hash.digest('hex').slice(0, 12);
}

/**
 * Builds bench/rawlimit from the Go module proxy the way the stack builds the control plane
 * (same toolchain, module cache and binary cache), unless this version is already built.
 */
export async function buildRawLimit(progress: (message: string) => void): Promise<string> {
  process.env.GOFLAGS = `${process.env.GOFLAGS ?? ''} -mod=mod`.trim();
  return ensureGoModuleBuild(
    { name: 'kpm-bench-rawlimit', version: sourceVersion(), moduleDir },
    progress,
  );
}

/** Runs the raw client-go limit for `pods` pods in a namespace of its own (deleted afterwards). */
export async function runRawLimit(
  binary: string,
  options: {
    pods: number;
    namespace: string;
    kubeconfig: string;
    workers?: number;
    /** Nodes to bind the pods to, round robin; default the stack's three kwok nodes. */
    nodes?: readonly string[];
  },
): Promise<RawLimit> {
  const { stdout } = await promisify(execFile)(
    binary,
    [
      `-kubeconfig=${options.kubeconfig}`,
      `-namespace=${options.namespace}`,
      `-pods=${options.pods}`,
      `-workers=${options.workers ?? 64}`,
      ...(options.nodes ? [`-nodes=${options.nodes.join(',')}`] : []),
    ],
    { maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout) as RawLimit;
}
