#!/usr/bin/env node
// Runs the kpm CLI from its TypeScript sources, so `npx kpm` works right after `npm ci`.
require('tsx/cjs');
const { runCli } = require('../apps/cli/src/main.ts');
runCli(process.argv.slice(2)).then((code) => process.exit(code));
