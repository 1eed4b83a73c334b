import type { ExecutableAndArguments } from '@kpm/contracts';
import { readStackEnv } from '@kpm/stack';

/** The local stack's real node: its name and an image on it with bash, coreutils and the stand-in. */
export interface RealNodeTarget {
  node: string;
  image: string;
}

/**
 * The real node as `.kpm/stack.env` names it. A stack without one fails the suite that needs it,
 * saying why, rather than skipping: a real-node suite that did not run proved nothing.
 */
export function realNode(): RealNodeTarget {
  const env = { ...readStackEnv(), ...process.env };
  if (!env.KPM_REAL_NODE || !env.KPM_REAL_IMAGE) {
    throw new Error(
      'the local stack has no real node (no KPM_REAL_NODE in .kpm/stack.env): `npx kpm stack status` ' +
        'says why (it needs root, overlayfs and cgroups; KPM_REAL_NODE=off leaves it out)',
    );
  }
  return { node: env.KPM_REAL_NODE, image: env.KPM_REAL_IMAGE };
}

/** Boot-worker settings that let processes use the real node's image. */
export function realNodeBootEnv({ image }: RealNodeTarget): Record<string, string> {
  return { KPM_ALLOWED_IMAGES: `${image},kpm.invalid/*`, KPM_DEFAULT_IMAGE: image };
}

/** kpm's DAQ stand-in (stack/images/daq-standin) with these flags: a real process on the node. */
export function standin(...args: string[]): ExecutableAndArguments[] {
  return [{ exec: 'daq-standin', args }];
}
