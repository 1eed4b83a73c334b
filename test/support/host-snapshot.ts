import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cgroupHierarchies, readMounts } from '@kpm/stack';

/** What of the host the real node could change: the state a test compares before and after. */
export interface HostSnapshot {
  /** Kernel settings: every readable file under the trees below, but counters. */
  sysctls: Record<string, string>;
  /** Netfilter: the tables loaded, and the rules where a tool to list them is installed. */
  netfilter: Record<string, string>;
  mounts: string[];
  /** The cgroups directly under each hierarchy's root. */
  cgroups: string[];
  links: string[];
  /** Processes of a container runtime or a kubelet, by name. */
  runtimeProcesses: string[];
}

const SYSCTL_TREES = [
  '/proc/sys/vm',
  '/proc/sys/kernel',
  '/proc/sys/net/ipv4',
  '/proc/sys/net/ipv6/conf/all',
  '/proc/sys/net/ipv6/conf/default',
  '/proc/sys/net/core',
  '/proc/sys/net/bridge',
  '/proc/sys/net/netfilter',
  '/proc/sys/fs',
];

/** Counters and random values the kernel changes by itself, and interfaces' own settings. */
const VOLATILE = [
  /^\/proc\/sys\/kernel\/(ns_last_pid|random\/|pty\/nr$|tainted$)/,
  /^\/proc\/sys\/fs\/(dentry-state|file-nr|inode-nr|inode-state|aio-nr|quota\/)/,
  /^\/proc\/sys\/net\/ipv4\/(conf|neigh)\/(?!all\/|default\/)/,
  /^\/proc\/sys\/net\/netfilter\/nf_conntrack_count$/,
];

/** A process's comm is at most 15 characters: `kubelet-v1.36.3`, `containerd-shim`. */
const RUNTIME_PROCESS = /^(kubelet.*|containerd.*|runc)$/;

export function snapshotHost(): HostSnapshot {
  return {
    sysctls: readSysctls(),
    netfilter: readNetfilter(),
    mounts: readMounts()
      .map((m) => m.mountPoint)
      .sort(),
    cgroups: cgroupHierarchies()
      .flatMap((h) => subdirectories(h).map((d) => join(h, d)))
      .sort(),
    links: readdirSync('/sys/class/net').sort(),
    runtimeProcesses: runtimeProcesses(),
  };
}

function readSysctls(): Record<string, string> {
  const values: Record<string, string> = {};
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (VOLATILE.some((pattern) => pattern.test(path))) continue;
      if (entry.isDirectory()) walk(path);
      else {
        try {
          values[path] = readFileSync(path, 'utf8');
        } catch {
          // write-only or refused: not a setting to compare
        }
      }
    }
  };
  for (const tree of SYSCTL_TREES) walk(tree);
  return values;
}

function readNetfilter(): Record<string, string> {
  const tables: Record<string, string> = {};
  for (const file of ['/proc/net/ip_tables_names', '/proc/net/ip6_tables_names']) {
    if (existsSync(file)) tables[file] = readFileSync(file, 'utf8');
  }
  for (const [tool, args] of [
    ['iptables-save', []],
    ['ip6tables-save', []],
    ['nft', ['list', 'ruleset']],
  ] as const) {
    try {
      tables[tool] = execFileSync(tool, [...args], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .replace(/^#.*$/gm, ''); // iptables-save's comment lines carry the time
    } catch {
      // not installed here
    }
  }
  return tables;
}

function subdirectories(dir: string): string[] {
  return readdirSync(dir).filter((name) => {
    try {
      return statSync(join(dir, name)).isDirectory();
    } catch {
      return false;
    }
  });
}

function runtimeProcesses(): string[] {
  const names: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      // A zombie has ended: it waits only for PID 1 to reap it.
      const state = /\) (\S) /.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
      if (RUNTIME_PROCESS.test(name) && state !== 'Z') names.push(`${name}[${pid}]`);
    } catch {
      // ended while we looked
    }
  }
  return names.sort();
}
