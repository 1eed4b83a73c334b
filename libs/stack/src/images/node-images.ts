import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Progress } from '../kube/go-build';
import { ensureStaticGoBinary, imageSourceDir } from './go-static';
import { DEBIAN_PATH, type BuiltImage, type ImageSpec, type LayerEntry } from './image-spec';
import { timedStep } from './image-tools';
import { buildImage } from './oci-image';

/** Where the stand-in is installed; its other names are symlinks beside it. */
const STANDIN = '/usr/local/bin/daq-standin';

/** The names the DAQ image runs the stand-in under (stack/images/daq-standin/executable-names.txt). */
export function standinNames(): string[] {
  const file = join(imageSourceDir('daq-standin'), 'executable-names.txt');
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
}

/** The pod sandbox: one static binary that waits and exits 0 on SIGTERM. */
export async function pauseImageSpec(progress: Progress): Promise<ImageSpec> {
  const pause = await ensureStaticGoBinary('pause', progress);
  return {
    name: 'kpm/pause',
    layers: [
      { name: 'pause', entries: [{ kind: 'file', path: 'pause', source: pause, mode: 0o755 }] },
    ],
    config: { entrypoint: ['/pause'], workingDir: '/' },
  };
}

/** KPM_REAL_IMAGE: Debian's essential set (bash, GNU coreutils) and the DAQ stand-in. */
export async function daqImageSpec(progress: Progress): Promise<ImageSpec> {
  const standin = await ensureStaticGoBinary('daq-standin', progress);
  const entries: LayerEntry[] = [
    { kind: 'file', path: STANDIN, source: standin, mode: 0o755 },
    // drunc's command lines start with `source <release>/env.sh` (examples/demo-session.yaml).
    {
      kind: 'file',
      path: '/opt/dunedaq/env.sh',
      source: join(imageSourceDir('daq-env'), 'env.sh'),
    },
  ];
  for (const name of standinNames().filter((name) => name !== 'daq-standin')) {
    entries.push({ kind: 'symlink', path: `/usr/local/bin/${name}`, target: 'daq-standin' });
  }
  return {
    name: 'kpm/daq',
    base: { suite: 'bookworm', variant: 'essential', include: [] },
    layers: [{ name: 'daq-standin', entries }],
    config: { cmd: [STANDIN], workingDir: '/', env: { PATH: DEBIAN_PATH } },
  };
}

export interface NodeImages {
  pause: BuiltImage;
  daq: BuiltImage;
}

/**
 * The images the real node needs, built (or found in the tool cache) for
 * `ctr -n k8s.io images import <archive>`: the pause image and the DAQ image.
 */
export async function ensureNodeImages(progress: Progress): Promise<NodeImages> {
  return timedStep(progress, 'node images (pause, daq)', async () => ({
    pause: await buildImage(await pauseImageSpec(progress), progress),
    daq: await buildImage(await daqImageSpec(progress), progress),
  }));
}
