import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
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
  mkdirSync(stackPaths.logs(), { recursive: true });
  const logFile = join(stackPaths.logs(), `build-${name}.log`);
  const log = createWriteStream(logFile, { flags: 'w' });
  const started = Date.now();
  options.progress(`${name}: building with ${go} ${args.filter((a) => a !== '-v').join(' ')}`);

  let packages = 0;
  let tail: string[] = [];
  const child = spawn(go, args, {
    cwd: options.cwd,
    // -buildvcs=false: the wrapper modules sit inside our git checkout, whose state is irrelevant.
    env: {
      ...process.env,
      GOFLAGS: `${process.env.GOFLAGS ?? ''} -buildvcs=false`.trim(),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const onOutput = (chunk: Buffer): void => {
    log.write(chunk);
    const lines = chunk.toString('utf8').split('\n').filter(Boolean);
    packages += lines.filter((line) => !line.startsWith('go: ') && !line.includes(' ')).length;
    tail = [...tail, ...lines].slice(-20);
  };
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  const ticker = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    options.progress(
      `${name}: still building (${seconds} s, ${packages} packages; log ${logFile})`,
    );
  }, 15000);

  try {
    const code = await new Promise<number>((resolve, reject) => {
      child.on('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'ENOENT'
            ? new Error(`kpm: '${go}' not found; install Go ≥ 1.26 or set KPM_GO`)
            : error,
        ),
      );
      child.on('close', (exitCode) => resolve(exitCode ?? 1));
    });
    if (code !== 0) {
      throw new Error(
        `kpm: building ${name} failed (exit ${code}); see ${logFile}\n${tail.join('\n')}`,
      );
    }
    const seconds = Math.round((Date.now() - started) / 1000);
    options.progress(`${name}: built in ${seconds} s (${packages} packages)`);
  } finally {
    clearInterval(ticker);
    await new Promise<void>((resolve) => log.end(resolve));
  }
}
