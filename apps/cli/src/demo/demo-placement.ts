/**
 * Where the demo's session runs: on the local stack's real node when there is one (every process
 * placed there, in the image built for it), else on kwok's simulated nodes as the session file
 * says, with one line saying why.
 */
import type { Boot } from '@kpm/client';

/** The real node as `.kpm/stack.env` names it (`KPM_REAL_NODE`, `KPM_REAL_IMAGE`). */
interface RealNodeTarget {
  node: string;
  image: string;
}

export function realNodeOf(env: Record<string, string | undefined>): RealNodeTarget | undefined {
  const node = env.KPM_REAL_NODE;
  const image = env.KPM_REAL_IMAGE;
  return node && image ? { node, image } : undefined;
}

/** Every process of the boot on the real node, in its image: the same tree, real processes. */
export function placeOnRealNode(boot: Boot, target: RealNodeTarget): Boot {
  return {
    ...boot,
    processes: boot.processes.map((process) => ({
      ...process,
      image: target.image,
      restriction: { ...process.restriction, allowedHosts: [target.node] },
    })),
  };
}
