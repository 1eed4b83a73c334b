import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import {
  ensureKpmImage,
  importIntoContainerd,
  KPM_IMAGE,
  repoRoot,
  stackContainerdSocket,
} from '@kpm/stack';
import { printJson } from '../output';

interface ImageBuildOptions {
  compile: boolean;
  import: boolean;
  json?: boolean;
}

/** `kpm image build`: kpm's own image, with no container engine (deploy/README.md). */
export function registerImageCommands(program: Command): void {
  const image = program.command('image').description("kpm's own container image");
  image
    .command('build')
    .description(
      'build kpm’s image (OCI archive in the tool cache) and import it into the real node’s containerd',
    )
    .option('--no-compile', 'take dist/ as it is instead of running the three nest builds')
    .option('--no-import', 'only write the archive')
    .option('--json', 'print JSON')
    .action(async (options: ImageBuildOptions) => {
      const progress = (line: string): void => void process.stderr.write(`kpm: ${line}\n`);
      const built = await ensureKpmImage(progress, { compile: options.compile });
      // The stable tag the local overlay runs (deploy/overlays/local): the package's version.
      const stable = `localhost/${KPM_IMAGE.name}:${packageVersion()}`;
      const imported =
        options.import && existsSync(stackContainerdSocket())
          ? await importIntoContainerd(built, [stable])
          : [];
      if (options.import && imported.length === 0) {
        progress(`no real node (${stackContainerdSocket()}): not imported`);
      }
      if (options.json) printJson({ ...built, imported });
      else console.log([built.reference, built.digest, built.archive, ...imported].join('\n'));
    });
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}
