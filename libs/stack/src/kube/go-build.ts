import { type ChildProcess, type ChildProcessByStdio, spawn } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
  type WriteStream,
} from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { stackPaths } from '../paths';
import { BuildSlots } from './build-slots';

export type Progress = (message: string) => void;

/** A binary built from one of our wrapper modules (stack/kube/<name>) with `go build`. */
export interface GoModuleBuild {
  name: string;
  version: string;
  moduleDir: string;
  ldflags?: string[];
}

/**
 * Binaries built together from one wrapper module by one `go build`: one graph, so what they
 * share compiles once and both cores stay busy to the last link.
 */
export interface GoModuleBinaries {
  /** Names the build in progress lines and its log, `.kpm/logs/build-<name>.log`. */
  name: string;
  version: string;
  moduleDir: string;
  /** The main packages: directories of moduleDir, each named as the binary it makes. */
  mains: readonly string[];
  ldflags?: string[];
}

/** A binary installed with `go install <pkg>@<version>` (modules without replace directives). */
export interface GoInstall {
  name: string;
  version: string;
  pkg: string;
  ldflags?: string[];
}

/** Where a tool lives once built: `<tool cache>/bin/<name>-<version>`, so another version rebuilds. */
export function goBinaryPath(name: string, version: string): string {
  return join(stackPaths.bin(), `${name}-${version}`);
}

/** Builds the wrapper module unless its binary exists; returns the binary's path. */
export function ensureGoModuleBuild(spec: GoModuleBuild, progress: Progress): Promise<string> {
  const target = goBinaryPath(spec.name, spec.version);
  if (existsSync(target)) return Promise.resolve(target);
  return onceInFlight(target, async () => {
    // Built beside the target and renamed: an interrupted build never leaves a binary that looks done.
    const partial = `${target}.partial-${process.pid}`;
    try {
      await runGo(spec.name, ['build', ...commonFlags(spec.ldflags), '-o', partial, '.'], {
        cwd: spec.moduleDir,
        packages: ['.'],
        progress,
      });
      renameSync(partial, target);
    } finally {
      rmSync(partial, { force: true });
    }
    return target;
  });
}

/** Builds every main package of the module in one `go build` unless all exist; binary → path. */
export function ensureGoModuleBinaries(
  spec: GoModuleBinaries,
  progress: Progress,
): Promise<Record<string, string>> {
  const targets = Object.fromEntries(
    spec.mains.map((main) => [main, goBinaryPath(main, spec.version)]),
  );
  if (Object.values(targets).every((target) => existsSync(target))) return Promise.resolve(targets);
  return onceInFlight(goBinaryPath(spec.name, spec.version), async () => {
    const partial = join(stackPaths.bin(), `.${spec.name}-${spec.version}.partial-${process.pid}`);
    const packages = spec.mains.map((main) => `./${main}`);
    mkdirSync(partial, { recursive: true });
    try {
      // `-o <dir>/` with several main packages writes one binary per package, named as its directory.
      const args = ['build', ...commonFlags(spec.ldflags), '-o', `${partial}/`, ...packages];
      await runGo(spec.name, args, { cwd: spec.moduleDir, packages, progress });
      for (const main of spec.mains) renameSync(join(partial, main), targets[main]);
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
    return targets;
  });
}

/** `go install`s the tool unless its binary exists; returns the binary's path. */
export function ensureGoInstall(spec: GoInstall, progress: Progress): Promise<string> {
  const target = goBinaryPath(spec.name, spec.version);
  if (existsSync(target)) return Promise.resolve(target);
  return onceInFlight(target, async () => {
    // A private GOBIN per tool and version: `go install` names the binary after the package.
    const gobin = join(stackPaths.cache('gobin'), `${spec.name}-${spec.version}`);
    rmSync(gobin, { recursive: true, force: true });
    mkdirSync(gobin, { recursive: true });
    await runGo(
      spec.name,
      ['install', ...commonFlags(spec.ldflags), `${spec.pkg}@${spec.version}`],
      { cwd: stackPaths.home(), env: { GOBIN: gobin }, progress },
    );
    const built = join(gobin, spec.pkg.split('/').pop() ?? spec.name);
    renameSync(built, target);
    return target;
  });
}

/**
 * Builds in flight in this process, by target: the stack starts every build at once
 * (`LocalStack.up` prepares all parts first) and each part's `up` awaits the same one.
 */
const inFlight = new Map<string, Promise<unknown>>();

function onceInFlight<T>(key: string, build: () => Promise<T>): Promise<T> {
  const running = inFlight.get(key) as Promise<T> | undefined;
  if (running) return running;
  const started = build().finally(() => inFlight.delete(key));
  inFlight.set(key, started);
  return started;
}

function commonFlags(ldflags: string[] = []): string[] {
  // -v lists packages as they compile: the progress we report. -s -w: smaller, faster links.
  return ['-v', '-trimpath', `-ldflags=${['-s', '-w', ...ldflags].join(' ')}`];
}

interface GoRun {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  progress: Progress;
  /** The packages built, for `go list -deps` to count what the build compiles; none for an install. */
  packages?: string[];
}

/**
 * Go commands at once (KPM_GO_BUILDS, default 2). Each compiles up to GOMAXPROCS packages in
 * parallel already; a second keeps the cores busy while the first links or waits on one long
 * package. More only share the same cores.
 */
const buildSlots = new BuildSlots(Number(process.env.KPM_GO_BUILDS) || 2);

async function runGo(name: string, args: string[], options: GoRun): Promise<void> {
  const go = process.env.KPM_GO ?? 'go';
  mkdirSync(stackPaths.bin(), { recursive: true });
  await buildSlots.run(
    () => runGoNow(go, name, args, options),
    () => options.progress(`${name}: queued until one of ${buildSlots.size} Go builds ends`),
  );
}

async function runGoNow(go: string, name: string, args: string[], options: GoRun): Promise<void> {
  const output = new BuildOutput(name);
  options.progress(`${name}: building with ${go} ${args.filter((a) => a !== '-v').join(' ')}`);
  const total = options.packages ? await countPackages(go, options.packages, options) : undefined;
  const started = Date.now();
  const seconds = (): number => Math.round((Date.now() - started) / 1000);
  const child = spawnGo(go, args, options);
  output.follow(child);
  const ticker = setInterval(() => {
    const counted = total ? `${output.packages} of ${total}` : `${output.packages}`;
    const left = secondsLeft(output.packages, total, Date.now() - started);
    options.progress(
      `${name}: still building (${seconds()} s, ${counted} packages${left === undefined ? '' : `, about ${left} s left`}; log ${output.logFile})`,
    );
  }, 15000);
  try {
    const code = await exitCodeOf(child, go);
    if (code !== 0) {
      throw new Error(
        `kpm: building ${name} failed (exit ${code}); see ${output.logFile}\n${output.tail.join('\n')}`,
      );
    }
    options.progress(`${name}: built in ${seconds()} s (${output.packages} packages)`);
  } finally {
    clearInterval(ticker);
    await output.close();
  }
}

/**
 * Seconds left at the rate so far, once a tenth is compiled; undefined before, or without a
 * total. Packages already in Go's build cache are not compiled again, so then it overstates.
 */
export function secondsLeft(
  done: number,
  total: number | undefined,
  elapsedMs: number,
): number | undefined {
  if (!total || done < total / 10) return undefined;
  return Math.round((elapsedMs / 1000) * (Math.max(0, total - done) / done));
}

/** How many packages (the standard library's among them) the build of these packages needs. */
async function countPackages(
  go: string,
  packages: string[],
  options: GoRun,
): Promise<number | undefined> {
  const child = spawnGo(go, ['list', '-deps', ...packages], options);
  let lines = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    lines += chunk.toString('utf8').split('\n').length - 1;
  });
  child.stderr.resume();
  // A count that fails only costs the estimate: the build itself reports the real error.
  return (await exitCodeOf(child, go)) === 0 ? lines : undefined;
}

function spawnGo(
  go: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(go, args, {
    cwd: options.cwd,
    // -buildvcs=false: the wrapper modules sit inside our git checkout, whose state is irrelevant.
    env: {
      ...process.env,
      GOFLAGS: `${process.env.GOFLAGS ?? ''} -buildvcs=false`.trim(),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function exitCodeOf(child: ChildProcess, go: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error(`kpm: '${go}' not found; install Go ≥ 1.26 or set KPM_GO`)
          : error,
      ),
    );
    child.on('close', (exitCode) => resolve(exitCode ?? 1));
  });
}

/** A build's output: all of it in `.kpm/logs/build-<name>.log`, its packages counted, its end kept. */
class BuildOutput {
  readonly logFile: string;
  /** Packages compiled so far (`go build -v` prints one bare import path per package). */
  packages = 0;
  /** The last lines, for the error message of a failed build. */
  tail: string[] = [];
  private readonly log: WriteStream;

  constructor(name: string) {
    mkdirSync(stackPaths.logs(), { recursive: true });
    this.logFile = join(stackPaths.logs(), `build-${name}.log`);
    this.log = createWriteStream(this.logFile, { flags: 'w' });
  }

  follow(child: ChildProcessByStdio<null, Readable, Readable>): void {
    const onOutput = (chunk: Buffer): void => this.record(chunk);
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
  }

  close(): Promise<void> {
    return new Promise<void>((resolve) => this.log.end(resolve));
  }

  private record(chunk: Buffer): void {
    this.log.write(chunk);
    const lines = chunk.toString('utf8').split('\n').filter(Boolean);
    this.packages += lines.filter((line) => !line.startsWith('go: ') && !line.includes(' ')).length;
    this.tail = [...this.tail, ...lines].slice(-20);
  }
}
