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

export type Progress = (message: string) => void;

/** A binary built from one of our wrapper modules (stack/kube/<name>) with `go build`. */
export interface GoModuleBuild {
  name: string;
  version: string;
  moduleDir: string;
  ldflags?: string[];
}

/** A binary installed with `go install <pkg>@<version>` (modules without replace directives). */
export interface GoInstall {
  name: string;
  version: string;
  pkg: string;
  ldflags?: string[];
}

/** Where a tool lives once built: `.kpm/bin/<name>-<version>`, so another version rebuilds. */
export function goBinaryPath(name: string, version: string): string {
  return join(stackPaths.bin(), `${name}-${version}`);
}

/** Builds the wrapper module unless its binary exists; returns the binary's path. */
export async function ensureGoModuleBuild(
  spec: GoModuleBuild,
  progress: Progress,
): Promise<string> {
  const target = goBinaryPath(spec.name, spec.version);
  if (existsSync(target)) return target;
  // Built beside the target and renamed: an interrupted build never leaves a binary that looks done.
  const partial = `${target}.partial-${process.pid}`;
  try {
    await runGo(spec.name, ['build', ...commonFlags(spec.ldflags), '-o', partial, '.'], {
      cwd: spec.moduleDir,
      progress,
    });
    renameSync(partial, target);
  } finally {
    rmSync(partial, { force: true });
  }
  return target;
}

/** `go install`s the tool unless its binary exists; returns the binary's path. */
export async function ensureGoInstall(spec: GoInstall, progress: Progress): Promise<string> {
  const target = goBinaryPath(spec.name, spec.version);
  if (existsSync(target)) return target;
  // A private GOBIN per tool and version: `go install` names the binary after the package.
  const gobin = join(stackPaths.cache('gobin'), `${spec.name}-${spec.version}`);
  rmSync(gobin, { recursive: true, force: true });
  mkdirSync(gobin, { recursive: true });
  await runGo(spec.name, ['install', ...commonFlags(spec.ldflags), `${spec.pkg}@${spec.version}`], {
    cwd: stackPaths.home(),
    env: { GOBIN: gobin },
    progress,
  });
  const built = join(gobin, spec.pkg.split('/').pop() ?? spec.name);
  renameSync(built, target);
  return target;
}

function commonFlags(ldflags: string[] = []): string[] {
  // -v lists packages as they compile: the progress we report. -s -w: smaller, faster links.
  return ['-v', '-trimpath', `-ldflags=${['-s', '-w', ...ldflags].join(' ')}`];
}

async function runGo(
  name: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; progress: Progress },
): Promise<void> {
  const go = process.env.KPM_GO ?? 'go';
  mkdirSync(stackPaths.bin(), { recursive: true });
  const output = new BuildOutput(name);
  const started = Date.now();
  const seconds = (): number => Math.round((Date.now() - started) / 1000);
  options.progress(`${name}: building with ${go} ${args.filter((a) => a !== '-v').join(' ')}`);
  const child = spawnGo(go, args, options);
  output.follow(child);
  const ticker = setInterval(() => {
    options.progress(
      `${name}: still building (${seconds()} s, ${output.packages} packages; log ${output.logFile})`,
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
