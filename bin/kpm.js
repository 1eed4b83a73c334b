#!/usr/bin/env node
// In a checkout the kpm CLI runs from its TypeScript sources, so `npx kpm` works right after
// `npm ci`; installed from a package (`npm pack`) it runs the compiled dist/ that ships in it.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const sources = join(__dirname, '..', 'apps', 'cli', 'src', 'main.ts');
if (existsSync(sources)) require('tsx/cjs');
const { main } = require(existsSync(sources) ? sources : '../dist/apps/cli/src/main.js');
void main();
