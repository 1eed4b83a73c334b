import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Progress } from '../kube/go-build';
import { stackPaths } from '../paths';
import { ensureDebianRootfs, type DebianRootfs } from './debian-rootfs';
import { fingerprint } from './fingerprint';
import { IMAGE_EPOCH, type BuiltImage, type ImageConfig, type ImageSpec } from './image-spec';
import { ensureTools, runTool, seconds, timedStep } from './image-tools';
import { layerInputs, writeLayerTar } from './layer';

/** Bumped when the builder changes what it makes of the same inputs. */
const BUILDER_VERSION = 'kpm-images/1';

/** The umoci layout's tag while an image is assembled (the archive carries the full reference). */
const WORK_TAG = 'image';

/**
 * Builds `spec` into an OCI archive in the tool cache (`images/`), or returns the one a previous
 * build left there for the same inputs: the tag is the inputs' fingerprint, so a warm call only
 * hashes files. Assembled with umoci (a blank image, one layer per base and spec layer, then the
 * config) and written with skopeo as an `oci-archive` that `ctr images import` names
 * `reference`. Same inputs, same digest: every time stamp is IMAGE_EPOCH and every layer's tar is
 * made reproducibly.
 */
export async function buildImage(spec: ImageSpec, progress: Progress): Promise<BuiltImage> {
  const started = Date.now();
  await ensureTools(['umoci', 'skopeo']);
  const rootfs = spec.base ? await ensureDebianRootfs(spec.base, progress) : undefined;
  const umoci = (await runTool('umoci', ['--version'])).trim();
  const key = fingerprint(
    BUILDER_VERSION,
    umoci,
    IMAGE_EPOCH,
    spec.name,
    rootfs?.fingerprint,
    spec.layers.map(layerInputs),
    spec.config,
  );
  const tag = key.slice(0, 16);
  const reference = `localhost/${spec.name}:${tag}`;
  const file = join(stackPaths.cache('images'), `${spec.name.replace(/\//g, '_')}-${tag}`);
  const cached = readRecord(`${file}.json`);
  if (cached) {
    progress(`images: ${reference} is built (${seconds(started)} s to check)`);
    return cached;
  }
  const work = `${file}.build-${process.pid}`;
  try {
    const layout = await timedStep(progress, `${reference}: assembling with umoci`, () =>
      assemble(spec, rootfs, work),
    );
    const image = await timedStep(
      progress,
      `${reference}: writing its OCI archive with skopeo`,
      () => writeArchive(layout, reference, `${file}.oci.tar`, key),
    );
    writeFileSync(`${file}.json`, `${JSON.stringify(image, null, 2)}\n`);
    progress(
      `images: ${reference} built in ${seconds(started)} s (${mebibytes(image.size)} MiB, ${image.digest})`,
    );
    return image;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function readRecord(path: string): BuiltImage | undefined {
  if (!existsSync(path)) return undefined;
  const image = JSON.parse(readFileSync(path, 'utf8')) as BuiltImage;
  // A record of an older builder (no imageId) is rebuilt: same inputs, same image.
  return existsSync(image.archive) && image.imageId ? image : undefined;
}

/** The image's creation time, and every history entry's: IMAGE_EPOCH. */
const CREATED = new Date(IMAGE_EPOCH * 1000).toISOString().replace('.000Z', 'Z');

/** The image as an umoci layout under work: base, layers, config; returns the layout's path. */
async function assemble(
  spec: ImageSpec,
  rootfs: DebianRootfs | undefined,
  work: string,
): Promise<string> {
  const layout = join(work, 'layout');
  const image = `${layout}:${WORK_TAG}`;
  mkdirSync(work, { recursive: true });
  await runTool('umoci', ['init', '--layout', layout]);
  await runTool('umoci', ['new', '--image', image]);
  if (rootfs && spec.base) {
    const { variant, suite, include } = spec.base;
    const createdBy = [`mmdebstrap --variant=${variant} ${suite}`, ...include].join(' ');
    await addLayer(image, rootfs.tar, createdBy);
  }
  for (const [index, layer] of spec.layers.entries()) {
    const tar = join(work, `layer-${index}.tar`);
    await writeLayerTar(layer, join(work, `staging-${index}`), tar);
    await addLayer(image, tar, `kpm: ${layer.name}`);
  }
  await runTool('umoci', [
    'config',
    '--image',
    image,
    '--no-history',
    `--created=${CREATED}`,
    '--os=linux',
    '--architecture=amd64',
    ...configFlags(spec.config),
  ]);
  await runTool('umoci', ['gc', '--layout', layout]);
  return layout;
}

/** Appends an uncompressed tar as a layer (umoci compresses it), with its history entry. */
function addLayer(image: string, tar: string, createdBy: string): Promise<string> {
  return runTool('umoci', [
    'raw',
    'add-layer',
    '--image',
    image,
    `--history.created=${CREATED}`,
    `--history.created_by=${createdBy}`,
    tar,
  ]);
}

function configFlags(config: ImageConfig): string[] {
  return [
    ...(config.entrypoint ?? []).map((word) => `--config.entrypoint=${word}`),
    ...(config.cmd ?? []).map((word) => `--config.cmd=${word}`),
    ...(config.user ? [`--config.user=${config.user}`] : []),
    ...(config.workingDir ? [`--config.workingdir=${config.workingDir}`] : []),
    ...Object.entries(config.env ?? {}).map(([name, value]) => `--config.env=${name}=${value}`),
    ...(config.exposedPorts ?? []).map((port) => `--config.exposedports=${port}`),
    ...Object.entries(config.labels ?? {}).map(
      ([name, value]) => `--config.label=${name}=${value}`,
    ),
  ];
}

async function writeArchive(
  layout: string,
  reference: string,
  archive: string,
  key: string,
): Promise<BuiltImage> {
  const partial = `${archive}.partial-${process.pid}`;
  try {
    await runTool('skopeo', [
      'copy',
      '--quiet',
      `oci:${layout}:${WORK_TAG}`,
      `oci-archive:${partial}:${reference}`,
    ]);
    // The digest containerd will report: the manifest the archive's index names.
    const index = JSON.parse(await runTool('tar', ['-xOf', partial, 'index.json'])) as {
      manifests: { digest: string }[];
    };
    const digest = index.manifests[0].digest;
    renameSync(partial, archive);
    const manifest = readManifest(layout, digest);
    return {
      reference,
      digest,
      imageId: manifest.config.digest,
      archive,
      format: 'oci-archive',
      size: manifest.config.size + manifest.layers.reduce((sum, layer) => sum + layer.size, 0),
      fingerprint: key,
    };
  } finally {
    rmSync(partial, { force: true });
  }
}

interface Manifest {
  config: { digest: string; size: number };
  layers: { size: number }[];
}

function readManifest(layout: string, digest: string): Manifest {
  return JSON.parse(readFileSync(blobPath(layout, digest), 'utf8')) as Manifest;
}

function blobPath(layout: string, digest: string): string {
  const [algorithm, hex] = digest.split(':');
  return join(layout, 'blobs', algorithm, hex);
}

function mebibytes(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
