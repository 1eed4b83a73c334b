/**
 * Whether this host can run the real node, and the Debian packages it needs. The node runs real
 * containers: it needs root (mounts, cgroups, a bridge), overlayfs for image layers, mounted
 * cgroup hierarchies and util-linux's `unshare`.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Progress } from '../kube/go-build';
import { stackPaths } from '../paths';
import { cgroupHierarchies } from './host-state';

/** Containerd (with ctr), runc and the CNI plugins: Debian bookworm's 1.6.20, 1.1.5 and 1.1.1. */
export const NODE_PACKAGES: readonly { name: string; command: string }[] = [
  { name: 'containerd', command: 'containerd' },
  { name: 'runc', command: 'runc' },
  { name: 'containernetworking-plugins', command: '' },
];

/**
 * Why this host cannot run the real node, or undefined when it can. `KPM_REAL_NODE=off` leaves
 * it out on purpose (the stack then has kwok's nodes only).
 */
export function hostCannotRunNode(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.KPM_REAL_NODE === 'off') return 'KPM_REAL_NODE=off';
  if (process.platform !== 'linux') return `it runs on Linux only, not ${process.platform}`;
  if (process.getuid?.() !== 0) return 'it needs root (mounts, cgroups, a network bridge)';
  const filesystems = readFileSync('/proc/filesystems', 'utf8');
  if (!/\boverlay\b/.test(filesystems)) return 'the kernel has no overlayfs (image layers)';
  if (cgroupHierarchies().length === 0) return 'no cgroup hierarchy is mounted';
  if (!existsSync('/usr/bin/unshare') && !existsSync('/bin/unshare'))
    return "util-linux's unshare is missing";
  return undefined;
}

/** Installs what is missing through scripts/debian-package.sh (the one place kpm calls apt-get). */
export async function ensureDebianPackages(progress: Progress): Promise<void> {
  const script = stackPaths.repo('scripts', 'debian-package.sh');
  for (const { name, command } of NODE_PACKAGES) {
    const args = command ? [name, command] : [name];
    const started = Date.now();
    const { stderr } = await promisify(execFile)(script, args);
    if (stderr.includes('installing'))
      progress(`real node: installed ${name} in ${Date.now() - started} ms`);
  }
}
