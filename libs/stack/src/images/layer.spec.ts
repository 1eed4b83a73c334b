import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashTree } from './fingerprint';
import { IMAGE_EPOCH, type LayerSpec } from './image-spec';
import { layerInputs, writeLayerTar } from './layer';

/** Every temporary directory of this file, removed at the end. */
const made: string[] = [];
const tempDir = (prefix: string): string => {
  made.push(mkdtempSync(join(tmpdir(), prefix)));
  return made[made.length - 1];
};
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A source tree: a program, a data file, a link; its modes and times as the caller sets them. */
function sourceTree(mode: number, mtime: number): string {
  const dir = tempDir('kpm-layer-src-');
  mkdirSync(join(dir, 'lib'));
  writeFileSync(join(dir, 'lib', 'main.js'), 'console.log(1)\n');
  writeFileSync(join(dir, 'run'), '#!/bin/sh\n');
  chmodSync(join(dir, 'run'), 0o700 | mode);
  chmodSync(join(dir, 'lib', 'main.js'), 0o600 | (mode & 0o666));
  symlinkSync('lib/main.js', join(dir, 'main'));
  for (const path of ['lib/main.js', 'run', 'lib', '.']) utimesSync(join(dir, path), mtime, mtime);
  return dir;
}

function layerOf(source: string): LayerSpec {
  return {
    name: 'app',
    entries: [
      { kind: 'tree', path: '/opt/app', source },
      { kind: 'file', path: '/usr/local/bin/tool', source: join(source, 'run'), mode: 0o755 },
      { kind: 'symlink', path: '/usr/local/bin/alias', target: 'tool' },
    ],
  };
}

async function tarOf(layer: LayerSpec): Promise<{ bytes: Buffer; listing: string }> {
  const work = tempDir('kpm-layer-');
  const tar = join(work, 'layer.tar');
  await writeLayerTar(layer, join(work, 'staging'), tar);
  const listing = execFileSync(
    'tar',
    ['--list', '--verbose', '--full-time', '--numeric-owner', '-f', tar],
    {
      env: { ...process.env, TZ: 'UTC' },
    },
  ).toString();
  return { bytes: readFileSync(tar), listing };
}

describe('writeLayerTar', () => {
  it('writes the same bytes whatever the sources’ times, umask-given modes and staging place', async () => {
    const a = await tarOf(layerOf(sourceTree(0o077, 1000)));
    const b = await tarOf(layerOf(sourceTree(0o000, 2_000_000_000)));
    expect(a.bytes.equals(b.bytes)).toBe(true);
  });

  it('stores root-owned entries at IMAGE_EPOCH, readable by all, writable by root only', async () => {
    const { listing } = await tarOf(layerOf(sourceTree(0o022, 1000)));
    const epoch = new Date(IMAGE_EPOCH * 1000).toISOString().slice(0, 19).replace('T', ' ');
    const lines = listing.trim().split('\n');
    for (const line of lines) expect(line).toContain(` 0/0 `);
    for (const line of lines) expect(line).toContain(epoch);
    const modeOf = (path: string): string =>
      lines
        .find((line) => line.endsWith(` ${path}`) || line.includes(` ${path} -> `))!
        .split(' ')[0];
    expect(modeOf('./')).toBe('drwxr-xr-x');
    expect(modeOf('./usr/local/bin/')).toBe('drwxr-xr-x');
    expect(modeOf('./opt/app/lib/main.js')).toBe('-rw-r--r--');
    expect(modeOf('./opt/app/run')).toBe('-rwxr-xr-x');
    expect(modeOf('./usr/local/bin/tool')).toBe('-rwxr-xr-x');
    expect(modeOf('./usr/local/bin/alias')).toMatch(/^l/); // a link's own mode means nothing
    expect(listing).toContain('./opt/app/main -> lib/main.js');
  });
});

describe('layerInputs (what the fingerprint covers)', () => {
  it('changes with a byte, an executable bit or a link target; not with times', () => {
    const source = sourceTree(0o022, 1000);
    const before = JSON.stringify(layerInputs(layerOf(source)));
    utimesSync(join(source, 'run'), 5000, 5000);
    expect(JSON.stringify(layerInputs(layerOf(source)))).toBe(before);

    writeFileSync(join(source, 'lib', 'main.js'), 'console.log(2)\n');
    const edited = hashTree(source);
    expect(JSON.stringify(layerInputs(layerOf(source)))).not.toBe(before);
    chmodSync(join(source, 'lib', 'main.js'), 0o755);
    expect(hashTree(source)).not.toBe(edited);
  });
});
