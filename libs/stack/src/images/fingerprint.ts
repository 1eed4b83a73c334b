import { createHash, type Hash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** sha256 of the JSON of parts, in hex. */
export function fingerprint(...parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** sha256 of one file's bytes, in hex. */
export function hashFile(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/**
 * sha256 of a file or tree as a layer stores it: each path (sorted), its kind, whether it is
 * executable (the layers normalise every other mode bit), and its bytes or link target.
 */
export function hashTree(root: string): string {
  const hash = createHash('sha256');
  addToHash(hash, root, '.');
  return hash.digest('hex');
}

function addToHash(hash: Hash, path: string, name: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) {
    hash.update(`l ${name} ${readlinkSync(path)}\n`);
  } else if (stat.isDirectory()) {
    hash.update(`d ${name}\n`);
    for (const entry of readdirSync(path).sort())
      addToHash(hash, join(path, entry), `${name}/${entry}`);
  } else if (stat.isFile()) {
    const executable = (stat.mode & 0o111) !== 0 ? 'x' : '-';
    hash.update(`f ${name} ${executable} ${stat.size}\n`);
    hash.update(readFileSync(path));
  } else {
    throw new Error(`kpm: ${path} is neither a file, a directory nor a symlink: no layer holds it`);
  }
}
