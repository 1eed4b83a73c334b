/**
 * What the real node adds to the host, made and removed by name: mounts under its directories,
 * its cgroup parent, its bridge, and the runtime directories containerd and CNI insist on. Each
 * `remove…` is safe to call when there is nothing to remove.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { runCommand } from '../run-command';

/** One line of /proc/self/mountinfo: where, what type, and the propagation tags. */
export interface MountEntry {
  mountPoint: string;
  fsType: string;
  optional: string[];
}

export function readMounts(mountinfo = '/proc/self/mountinfo'): MountEntry[] {
  return readFileSync(mountinfo, 'utf8').split('\n').filter(Boolean).map(parseMountLine);
}

/** `36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw` (proc(5)). */
export function parseMountLine(line: string): MountEntry {
  const [before, after = ''] = line.split(' - ');
  const fields = before.split(' ');
  return {
    mountPoint: unescapeMount(fields[4]),
    fsType: after.split(' ')[0],
    optional: fields.slice(6),
  };
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescapeMount(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) =>
    String.fromCharCode(parseInt(octal, 8)),
  );
}

/** Mount points at or below `dir`, deepest first (the order to unmount them in). */
export function mountsUnder(dir: string, mounts: readonly MountEntry[] = readMounts()): string[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  const points = mounts
    .map((m) => m.mountPoint)
    .filter((point) => point === dir || point.startsWith(prefix));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

/** Unmounts everything at or below `dir` (a mount stacked twice is unmounted twice). */
export async function unmountUnder(dir: string): Promise<number> {
  let count = 0;
  for (let round = 0; round < 10; round++) {
    const points = mountsUnder(dir);
    if (points.length === 0) return count;
    for (const point of points) {
      await runCommand('umount', [point]).catch(() => runCommand('umount', ['--lazy', point]));
      count++;
    }
  }
  const left = mountsUnder(dir);
  if (left.length > 0) throw new Error(`kpm: could not unmount ${left.join(', ')}`);
  return count;
}

/** Makes `dir` a mount point of its own with shared propagation (a no-op when it already is). */
export async function ensureSharedMount(dir: string): Promise<void> {
  const entry = readMounts().find((m) => m.mountPoint === dir);
  if (!entry) await runCommand('mount', ['--bind', dir, dir]);
  if (!entry?.optional.some((tag) => tag.startsWith('shared:'))) {
    await runCommand('mount', ['--make-shared', dir]);
  }
}

/** The directories where cgroup hierarchies are mounted (each v1 controller, and cgroup2). */
export function cgroupHierarchies(mounts: readonly MountEntry[] = readMounts()): string[] {
  return mounts
    .filter((m) => m.fsType === 'cgroup' || m.fsType === 'cgroup2')
    .map((m) => m.mountPoint);
}

/** Creates `root` (e.g. /kpm-node) in every hierarchy: the kubelet requires its cgroup root to exist. */
export function createCgroupRoot(root: string): void {
  for (const hierarchy of cgroupHierarchies())
    mkdirSync(join(hierarchy, root), { recursive: true });
}

/** Removes `root` and every cgroup below it, deepest first, in every hierarchy. */
export function removeCgroupRoot(root: string): string[] {
  const left: string[] = [];
  for (const hierarchy of cgroupHierarchies()) {
    const top = join(hierarchy, root);
    if (!existsSync(top)) continue;
    for (const dir of directoriesDeepestFirst(top)) {
      try {
        rmdirSync(dir);
      } catch (error) {
        left.push(`${dir} (${(error as NodeJS.ErrnoException).code})`);
      }
    }
  }
  return left;
}

function directoriesDeepestFirst(top: string): string[] {
  const below = readdirSync(top, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => directoriesDeepestFirst(join(top, entry.name)));
  return [...below, top];
}

/** Creates the bridge with `address` (CIDR form) unless it exists as such; refuses a clash. */
export async function ensureBridge(name: string, address: string): Promise<void> {
  const ip = address.split('/')[0];
  const holders = await interfacesWithAddress(ip);
  const others = holders.filter((holder) => holder !== name);
  if (others.length > 0) {
    throw new Error(
      `kpm: the real node's address ${ip} is already on ${others.join(', ')}: remove it or stop what uses it`,
    );
  }
  if (!existsSync(`/sys/class/net/${name}`)) {
    await runCommand('ip', ['link', 'add', name, 'type', 'bridge']);
  }
  if (!holders.includes(name)) await runCommand('ip', ['addr', 'add', address, 'dev', name]);
  await runCommand('ip', ['link', 'set', name, 'up']);
}

/** Deletes the bridge and any veth still attached to it. */
export async function removeBridge(name: string): Promise<void> {
  const ports = `/sys/class/net/${name}/brif`;
  if (existsSync(ports)) {
    for (const port of readdirSync(ports)) {
      await runCommand('ip', ['link', 'delete', port]).catch(() => undefined);
    }
  }
  if (existsSync(`/sys/class/net/${name}`)) await runCommand('ip', ['link', 'delete', name]);
}

async function interfacesWithAddress(ip: string): Promise<string[]> {
  const output = await runCommand('ip', ['-o', '-4', 'addr', 'show']);
  return output
    .split('\n')
    .filter((line) => line.split(/\s+/)[3]?.split('/')[0] === ip)
    .map((line) => line.split(/\s+/)[1]);
}

/**
 * Host directories a runtime creates outside the node's own (containerd's shim sockets and FIFOs
 * under /run/containerd, libcni's result cache under /var/lib/cni): which existed before `up`,
 * so `down` removes only those it made, and only once empty of the node's entries.
 */
export const RUNTIME_DIRS = ['/run/containerd', '/var/lib/cni'] as const;

export function existingRuntimeDirs(): string[] {
  return RUNTIME_DIRS.filter((dir) => existsSync(dir));
}

/**
 * Removes what the node left in the runtime directories it created: empty directories (shim
 * sockets go when their shim exits), libcni's cached results of the node's network, then each
 * directory itself when it is empty and was not there before `up`.
 */
export function removeRuntimeDirs(network: string, existedBefore: readonly string[]): string[] {
  const results = '/var/lib/cni/results';
  if (existsSync(results)) {
    for (const file of readdirSync(results).filter((f) => f.startsWith(`${network}-`))) {
      rmSync(join(results, file), { force: true });
    }
  }
  const left: string[] = [];
  for (const dir of RUNTIME_DIRS) {
    if (existedBefore.includes(dir) || !existsSync(dir)) continue;
    for (const empty of directoriesDeepestFirst(dir)) {
      if (readdirSync(empty).length === 0) rmdirSync(empty);
    }
    if (existsSync(dir)) left.push(`${dir} (${describeEntries(dir)})`);
  }
  return left;
}

function describeEntries(dir: string): string {
  return readdirSync(dir)
    .map((name) => (statSync(join(dir, name)).isDirectory() ? `${name}/` : name))
    .join(', ');
}
