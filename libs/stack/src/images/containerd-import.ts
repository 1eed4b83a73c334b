import { existsSync } from 'node:fs';
import { nodeLayout } from '../node/node-layout';
import type { BuiltImage } from './image-spec';
import { runTool } from './image-tools';

/** The real node's containerd socket, where the kubelet finds its images. */
export function stackContainerdSocket(): string {
  return nodeLayout().containerdSocket;
}

/**
 * Imports the image's archive into containerd's `k8s.io` namespace (the kubelet's), where it is
 * named `image.reference`, and tags it with `alsoAs` too (e.g. a stable tag a kustomize overlay
 * names). An image already there (the reference is its inputs' fingerprint) is not imported
 * again. Returns the references now present.
 */
export async function importIntoContainerd(
  image: BuiltImage,
  alsoAs: string[] = [],
  socket: string = stackContainerdSocket(),
): Promise<string[]> {
  if (!existsSync(socket)) {
    throw new Error(`kpm: no containerd at ${socket}: is the real node up (kpm stack up)?`);
  }
  const ctr = (args: string[]): Promise<string> =>
    runTool('ctr', ['--address', socket, '--namespace', 'k8s.io', ...args]);
  const present = (await ctr(['images', 'list', '--quiet'])).split('\n');
  if (!present.includes(image.reference)) await ctr(['images', 'import', image.archive]);
  for (const reference of alsoAs) {
    await ctr(['images', 'tag', '--force', image.reference, reference]);
  }
  return [image.reference, ...alsoAs];
}
