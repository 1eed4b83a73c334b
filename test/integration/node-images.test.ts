import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureNodeImages, standinNames, type NodeImages } from '@kpm/stack';

/**
 * The real node's images (libs/stack/src/images): built from registry packages only (Debian's
 * via mmdebstrap, Go modules via the proxy), reproducible, and free on a warm call.
 */

/** Builds the node images into a tool cache of their own (KPM_CACHE_DIR), logging each step. */
async function buildInto(cache: string): Promise<{ images: NodeImages; log: string[] }> {
  const log: string[] = [];
  const previous = process.env.KPM_CACHE_DIR;
  process.env.KPM_CACHE_DIR = cache;
  try {
    return { images: await ensureNodeImages((line) => log.push(line)), log };
  } finally {
    if (previous === undefined) delete process.env.KPM_CACHE_DIR;
    else process.env.KPM_CACHE_DIR = previous;
  }
}

function fromArchive(archive: string, path: string): string {
  return execFileSync('tar', ['-xOf', archive, path], { maxBuffer: 1 << 30 }).toString('latin1');
}

function blob(archive: string, digest: string): string {
  return fromArchive(archive, `blobs/${digest.replace(':', '/')}`);
}

interface Manifest {
  config: { digest: string };
  layers: { digest: string }[];
}

interface ImageConfigBlob {
  created: string;
  config: { Cmd?: string[]; Entrypoint?: string[]; Env?: string[] };
  history: { created_by: string }[];
}

function manifestAndConfig(archive: string, digest: string): [Manifest, ImageConfigBlob] {
  const manifest = JSON.parse(blob(archive, digest)) as Manifest;
  return [manifest, JSON.parse(blob(archive, manifest.config.digest)) as ImageConfigBlob];
}

describe('the real node’s images', () => {
  let first: { images: NodeImages; log: string[] };
  const firstCache = mkdtempSync(join(tmpdir(), 'kpm-images-a-'));

  const caches = [firstCache];

  beforeAll(async () => {
    first = await buildInto(firstCache);
  }, 600000);

  afterAll(() => {
    for (const cache of caches) rmSync(cache, { recursive: true, force: true });
  });

  it('are the same image when built again from nothing (same inputs, same digest)', async () => {
    caches.push(mkdtempSync(join(tmpdir(), 'kpm-images-b-')));
    const second = await buildInto(caches[1]);
    expect(second.log.join('\n')).toContain('with mmdebstrap: done');
    expect(second.images.daq.digest).toBe(first.images.daq.digest);
    expect(second.images.pause.digest).toBe(first.images.pause.digest);
    expect(second.images.daq.reference).toBe(first.images.daq.reference);
  }, 600000);

  it('are not rebuilt on a warm call', async () => {
    const warm = await buildInto(firstCache);
    expect(warm.images).toEqual(first.images);
    expect(warm.log.filter((line) => /assembling|go build|mmdebstrap/.test(line))).toEqual([]);
    expect(warm.log.filter((line) => line.endsWith('s to check)'))).toHaveLength(2);
  });

  it('name themselves for ctr import: localhost/kpm/<name>:<fingerprint tag>', () => {
    for (const image of [first.images.pause, first.images.daq]) {
      expect(image.reference).toMatch(/^localhost\/kpm\/(pause|daq):[0-9a-f]{16}$/);
      expect(image.format).toBe('oci-archive');
      const index = JSON.parse(fromArchive(image.archive, 'index.json')) as {
        manifests: unknown[];
      };
      expect(index.manifests).toEqual([
        expect.objectContaining({
          digest: image.digest,
          annotations: { 'org.opencontainers.image.ref.name': image.reference },
        }),
      ]);
    }
  });

  it('make the DAQ image Debian with bash, coreutils and the stand-in under drunc’s names', () => {
    const { archive, digest } = first.images.daq;
    const [manifest, config] = manifestAndConfig(archive, digest);
    expect(config.config.Cmd).toEqual(['/usr/local/bin/daq-standin']);
    expect(config.config.Env).toContain(
      'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    );
    expect(config.created).toBe('2026-01-01T00:00:00Z');
    expect(manifest.layers).toHaveLength(2);
    expect(config.history[0].created_by).toBe('mmdebstrap --variant=essential bookworm');
    // The fresh cache holds one Debian root filesystem, and its package list beside it.
    const debian = join(firstCache, 'images', 'debian');
    const lists = readdirSync(debian).filter((file) => file.endsWith('.packages'));
    expect(lists).toHaveLength(1);
    const packages = readFileSync(join(debian, lists[0]), 'utf8');
    expect(packages).toMatch(/^bash \d/m);
    expect(packages).toMatch(/^coreutils \d/m);
    const standinLayer = listLayer(archive, manifest.layers[1].digest);
    for (const name of standinNames().filter((name) => name !== 'daq-standin')) {
      expect(standinLayer).toContain(`./usr/local/bin/${name} -> daq-standin`);
    }
  });

  it('make the pause image one static binary', () => {
    const { archive, digest, size } = first.images.pause;
    const [manifest, config] = manifestAndConfig(archive, digest);
    expect(config.config.Entrypoint).toEqual(['/pause']);
    expect(manifest.layers).toHaveLength(1);
    expect(size).toBeLessThan(2 * 1024 * 1024);
  });
});

function listLayer(archive: string, digest: string): string {
  const work = mkdtempSync(join(tmpdir(), 'kpm-layer-'));
  execFileSync('tar', ['-xf', archive, '-C', work, `blobs/${digest.replace(':', '/')}`]);
  try {
    return execFileSync('tar', ['-tvzf', join(work, 'blobs', ...digest.split(':'))]).toString();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
