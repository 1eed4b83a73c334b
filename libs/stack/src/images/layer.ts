import { chmodSync, cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hashFile, hashTree } from './fingerprint';
import { IMAGE_EPOCH, type LayerEntry, type LayerSpec } from './image-spec';
import { runTool } from './image-tools';

/** What a layer's fingerprint covers: each entry with the hash of its content. */
export function layerInputs(layer: LayerSpec): unknown {
  return {
    name: layer.name,
    entries: layer.entries.map((entry) => {
      if (entry.kind === 'symlink') return entry;
      const content = entry.kind === 'file' ? hashFile(entry.source) : hashTree(entry.source);
      return {
        kind: entry.kind,
        path: entry.path,
        mode: 'mode' in entry ? entry.mode : undefined,
        content,
      };
    }),
  };
}

/**
 * Writes the layer as an uncompressed tar, the same bytes for the same entries: names sorted,
 * owner root, every time stamp IMAGE_EPOCH, modes normalised (readable by all, executable where
 * the source is, writable by root only), no access or change times.
 */
export async function writeLayerTar(layer: LayerSpec, staging: string, tar: string): Promise<void> {
  mkdirSync(staging, { recursive: true });
  for (const entry of layer.entries) stage(staging, entry);
  await runTool('tar', [
    '--create',
    `--file=${tar}`,
    `--directory=${staging}`,
    '--sort=name',
    `--mtime=@${IMAGE_EPOCH}`,
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '--mode=u+rwX,go+rX,go-w',
    '--format=posix',
    '--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
    '.',
  ]);
}

function stage(staging: string, entry: LayerEntry): void {
  const target = join(staging, entry.path);
  makeParents(staging, dirname(entry.path));
  if (entry.kind === 'symlink') {
    symlinkSync(entry.target, target);
  } else if (entry.kind === 'file') {
    cpSync(entry.source, target);
    if (entry.mode !== undefined) chmodSync(target, entry.mode);
  } else {
    cpSync(entry.source, target, { recursive: true, verbatimSymlinks: true });
  }
}

/** Directories a layer creates are 0755, whatever the umask: they end up in the image's tree. */
function makeParents(staging: string, path: string): void {
  chmodSync(staging, 0o755);
  let dir = staging;
  for (const part of path.split('/').filter(Boolean)) {
    dir = join(dir, part);
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
  }
}
