import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Progress } from '../kube/go-build';
import { stackPaths } from '../paths';
import { fingerprint } from './fingerprint';
import { IMAGE_EPOCH, type DebianBase } from './image-spec';
import { ensureTools, runTool, timedStep } from './image-tools';

/** Debian's mirror; KPM_DEBIAN_MIRROR points elsewhere (a site's own mirror). */
export function debianMirror(): string {
  return process.env.KPM_DEBIAN_MIRROR ?? 'http://deb.debian.org/debian';
}

/** Installed by Debian's mmdebstrap package: /usr merged without the usrmerge package (no perl). */
const MERGED_USR_HOOKS = '/usr/share/mmdebstrap/hooks/merged-usr';

/** What mmdebstrap leaves out of every image: documentation but the licences, manuals, locales. */
const DPKG_EXCLUDES = [
  'path-exclude=/usr/share/doc/*',
  'path-include=/usr/share/doc/*/copyright',
  'path-exclude=/usr/share/man/*',
  'path-exclude=/usr/share/info/*',
  'path-exclude=/usr/share/locale/*',
];

export interface DebianRootfs {
  /** An uncompressed tar of the root filesystem (no device nodes: the runtime makes /dev). */
  tar: string;
  /** `package version` lines of what it holds (dpkg's status): the mirror's state, on record. */
  packages: string;
  fingerprint: string;
}

/**
 * The root filesystem of `base`, from `mmdebstrap` against Debian's packages, cached in the tool
 * cache by the fingerprint of the spec, the mirror and mmdebstrap's version. Reproducible:
 * SOURCE_DATE_EPOCH fixes every time stamp, the host's resolv.conf and hostname are left out, and
 * the same mirror content gives the same bytes.
 */
export async function ensureDebianRootfs(
  base: DebianBase,
  progress: Progress,
): Promise<DebianRootfs> {
  await ensureTools(['mmdebstrap', 'mmtarfilter']);
  const version = (await runTool('mmdebstrap', ['--version'])).trim();
  const key = fingerprint(
    'debian-rootfs/1',
    base,
    debianMirror(),
    version,
    IMAGE_EPOCH,
    DPKG_EXCLUDES,
  );
  const dir = stackPaths.cache(join('images', 'debian'));
  const result = {
    tar: join(dir, `${key.slice(0, 16)}.tar`),
    packages: join(dir, `${key.slice(0, 16)}.packages`),
    fingerprint: key,
  };
  if (existsSync(result.tar) && existsSync(result.packages)) return result;
  mkdirSync(dir, { recursive: true });
  const partial = `${result.tar}.partial-${process.pid}`;
  try {
    await timedStep(progress, `Debian ${base.suite} (${describe(base)}) with mmdebstrap`, () =>
      mmdebstrap(base, `${partial}.full`),
    );
    await runTool('mmtarfilter', ['--path-exclude=/dev/*'], {
      stdinFile: `${partial}.full`,
      stdoutFile: partial,
    });
    writeFileSync(result.packages, await installedPackages(partial));
    renameSync(partial, result.tar);
  } finally {
    rmSync(partial, { force: true });
    rmSync(`${partial}.full`, { force: true });
  }
  return result;
}

function describe(base: DebianBase): string {
  return [base.variant, ...base.include].join(' + ');
}

function mmdebstrap(base: DebianBase, output: string): Promise<string> {
  return runTool(
    'mmdebstrap',
    [
      `--variant=${base.variant}`,
      '--format=tar',
      `--hook-dir=${MERGED_USR_HOOKS}`,
      ...(base.include.length ? [`--include=${base.include.join(',')}`] : []),
      ...DPKG_EXCLUDES.map((option) => `--dpkgopt=${option}`),
      // The host's files, copied for debootstrap compatibility, would make images differ by host.
      '--customize-hook=rm -f "$1"/etc/resolv.conf "$1"/etc/hostname',
      base.suite,
      output,
      debianMirror(),
    ],
    { env: { SOURCE_DATE_EPOCH: String(IMAGE_EPOCH) } },
  );
}

/** `package version` per line, from the root filesystem's dpkg status. */
async function installedPackages(tar: string): Promise<string> {
  const status = await runTool('tar', ['-xOf', tar, './var/lib/dpkg/status']);
  const lines: string[] = [];
  let name = '';
  for (const line of status.split('\n')) {
    if (line.startsWith('Package: ')) name = line.slice('Package: '.length);
    if (line.startsWith('Version: ')) lines.push(`${name} ${line.slice('Version: '.length)}`);
  }
  return `${lines.sort().join('\n')}\n`;
}
