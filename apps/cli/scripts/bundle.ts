/** `npm run build` and `npm pack` end here: the compiled CLI bundled into one file (cli-bundle.ts). */
import { relative } from 'node:path';
import { bundleCli } from '@kpm/stack/cli-bundle';

void bundleCli().then(
  (file) => console.log(`kpm: the CLI bundled into ${relative(process.cwd(), file)}`),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
