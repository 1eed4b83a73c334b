#!/usr/bin/env node
// In a checkout the kpm CLI runs from its TypeScript sources, so `npx kpm` works right after
// `npm ci`; installed from a package (`npm pack`) it runs the compiled dist/ that ships in it.
// KPM_CLI_COMPILED=1 runs dist/ in a checkout too (after `npm run build`): it starts in about
// half the time, since nothing is transpiled on the way (the benchmarks time the CLI so).
// Compiled, it runs the one-file bundle of dist/ (dist/apps/cli/kpm.js, made by `npm run build`
// and `npm pack`): one file loads in about half the time of the ~870 it is made of. In a
// checkout only while it is as new as dist/ (a `nest build cli` alone leaves it behind); a
// package's files carry their extraction times, in no useful order.
const {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} = require('node:fs');
const { dirname, join } = require('node:path');

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
const { main } = bundled ? loadBundle(bundle) : require(fromSources ? sources : compiled);
void main();

/**
 * The bundle as `require` would load it, with V8's code cache: compiling the 3 MB file and the
 * functions a command runs is a third of the bundle's load. The first run of each bundle
 * (per Node version and command) writes what V8 compiled, at exit, under kpm's cache directory
 * (`KPM_CACHE_DIR`, else `$XDG_CACHE_HOME/kpm`, else `~/.cache/kpm`, as the local stack's
 * tools), in `cli-code-cache/`; later runs start from it. V8 checks the cache against the
 * source and its own flags and compiles afresh from a mismatched one. Nothing is cached where
 * that directory cannot be written, or with KPM_CLI_CODE_CACHE=0.
 */
function loadBundle(file) {
  const Module = require('node:module');
  const vm = require('node:vm');
  const cache = codeCacheFile(file, statSync(file));
  const cachedData = cache ? readIfThere(cache) : undefined;
  const script = new vm.Script(Module.wrap(readFileSync(file, 'utf8')), {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (cache && (cachedData === undefined || script.cachedDataRejected)) {
    process.once('exit', () => writeQuietly(cache, script.createCachedData()));
  }
  const loaded = new Module(file, module);
  loaded.filename = file;
  script
    .runInThisContext()
    .call(loaded.exports, loaded.exports, Module.createRequire(file), loaded, file, dirname(file));
  loaded.loaded = true;
  return loaded.exports;
}

/**
 * Where this bundle's code cache lives: one file per bundle (size, time), Node version and
 * command, since V8 caches the functions a run compiled and each command runs its own.
 */
function codeCacheFile(file, stat) {
  if (process.env.KPM_CLI_CODE_CACHE === '0') return undefined;
  const home = require('node:os').homedir();
  const cacheHome = process.env.XDG_CACHE_HOME || (home ? join(home, '.cache') : undefined);
  const kpmCache = process.env.KPM_CACHE_DIR || (cacheHome && join(cacheHome, 'kpm'));
  if (!kpmCache) return undefined;
  const bundleKey = `${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}`;
  const command = /^[a-z][a-z-]{0,20}$/.test(process.argv[2] ?? '') ? process.argv[2] : 'other';
  return join(kpmCache, 'cli-code-cache', bundleKey, `${command}.v8cache`);
}

function readIfThere(file) {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Writes the cache through a temporary file, so a concurrent run never reads half of one; the
 * caches of other bundles (an older build, another Node) go once a day has passed since their
 * last write (two checkouts in use at once keep theirs).
 */
function writeQuietly(file, data) {
  const temporary = `${file}.${process.pid}`;
  const bundles = dirname(dirname(file));
  try {
    for (const entry of readdirSync(bundles, { withFileTypes: true })) {
      const path = join(bundles, entry.name);
      const stale = () => statSync(path).mtimeMs < Date.now() - 86_400_000;
      if (path !== dirname(file) && stale()) {
        rmSync(path, { recursive: true, force: true });
      }
    }
  } catch {
    // no cache directory yet
  }
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, data, { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    rmSync(temporary, { force: true });
  }
}
