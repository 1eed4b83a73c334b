#!/usr/bin/env node
// In a checkout the kpm CLI runs from its TypeScript sources, so `npx kpm` works right after
// `npm ci`; installed from a package (`npm pack`) it runs the compiled dist/ that ships in it.
// KPM_CLI_COMPILED=1 runs dist/ in a checkout too (after `npm run build`): it starts in about
// half the time, since nothing is transpiled on the way (the benchmarks time the CLI so).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const sources = join(__dirname, '..', 'apps', 'cli', 'src', 'main.ts');
const compiled = join(__dirname, '..', 'dist', 'apps', 'cli', 'src', 'main.js');
const fromSources = process.env.KPM_CLI_COMPILED !== '1' && existsSync(sources);
if (!fromSources && !existsSync(compiled)) {
  console.error('kpm: the compiled CLI (dist/) is not built: run `npm run build` first');
  process.exit(2);
}
if (fromSources) require('tsx/cjs');
const { main } = require(fromSources ? sources : compiled);
void main();
