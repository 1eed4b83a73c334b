#!/usr/bin/env node
// In a checkout the kpm CLI runs from its TypeScript sources, so `npx kpm` works right after
// `npm ci`; installed from a package (`npm pack`) it runs the compiled dist/ that ships in it.
// KPM_CLI_COMPILED=1 runs dist/ in a checkout too (after `npm run build`): it starts in about
// half the time, since nothing is transpiled on the way (the benchmarks time the CLI so).
// Compiled, it runs the one-file bundle of dist/ (dist/apps/cli/kpm.js, made by `npm run build`
// and `npm pack`): one file loads in about half the time of the ~870 it is made of. In a
// checkout only while it is as new as dist/ (a `nest build cli` alone leaves it behind); a
// package's files carry their extraction times, in no useful order.
const { existsSync, statSync } = require('node:fs');
const { join } = require('node:path');

const sources = join(__dirname, '..', 'apps', 'cli', 'src', 'main.ts');
const compiled = join(__dirname, '..', 'dist', 'apps', 'cli', 'src', 'main.js');
const bundle = join(__dirname, '..', 'dist', 'apps', 'cli', 'kpm.js');
const checkout = existsSync(sources);
const fromSources = process.env.KPM_CLI_COMPILED !== '1' && checkout;
if (!fromSources && !existsSync(compiled)) {
  console.error('kpm: the compiled CLI (dist/) is not built: run `npm run build` first');
  process.exit(2);
}
if (fromSources) require('tsx/cjs');
const bundled =
  !fromSources &&
  existsSync(bundle) &&
  (!checkout || statSync(bundle).mtimeMs >= statSync(compiled).mtimeMs);
const { main } = require(fromSources ? sources : bundled ? bundle : compiled);
void main();
