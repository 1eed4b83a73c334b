import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Progress } from '../kube/go-build';
import { repoRoot } from '../paths';

/** The Debian packages of the tools the builder runs, each named by one of its commands. */
const TOOL_PACKAGES: Record<string, string> = {
  mmdebstrap: 'mmdebstrap',
  mmtarfilter: 'mmdebstrap',
  umoci: 'umoci',
  skopeo: 'skopeo',
};

const ensured = new Set<string>();

/** Installs the tools' Debian packages when missing (scripts/debian-package.sh). */
export async function ensureTools(commands: string[]): Promise<void> {
  const script = join(repoRoot(), 'scripts', 'debian-package.sh');
  for (const command of commands.filter((name) => !ensured.has(name))) {
    if (!existsSync(script))
      throw new Error(`kpm: ${script} is missing: images build in a checkout`);
    await runTool(script, [TOOL_PACKAGES[command] ?? command, command]);
    ensured.add(command);
  }
}

export interface ToolOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** stdin from this file, stdout to that one (else stdout is returned). */
  stdinFile?: string;
  stdoutFile?: string;
  progress?: Progress;
}

/** Runs a program to completion; resolves to its stdout. A failure carries the output's tail. */
export function runTool(
  command: string,
  args: string[],
  options: ToolOptions = {},
): Promise<string> {
  const stdin = options.stdinFile ? openSync(options.stdinFile, 'r') : 'ignore';
  const stdout = options.stdoutFile ? openSync(options.stdoutFile, 'w') : 'pipe';
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: [stdin, stdout, 'pipe'],
  });
  const closeFiles = (): void => {
    if (typeof stdin === 'number') closeSync(stdin);
    if (typeof stdout === 'number') closeSync(stdout);
  };
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
  return new Promise((resolve, reject) => {
    child.on('error', (error: NodeJS.ErrnoException) => {
      closeFiles();
      reject(
        error.code === 'ENOENT'
          ? new Error(`kpm: \`${command}\` is not on PATH`)
          : new Error(`kpm: could not run ${command}: ${error.message}`),
      );
    });
    child.on('close', (code, signal) => {
      closeFiles();
      if (code === 0) return resolve(Buffer.concat(out).toString('utf8'));
      const how = signal ? `was killed by ${signal}` : `exited with ${code}`;
      const tail = Buffer.concat([...out, ...err])
        .toString('utf8')
        .trimEnd()
        .split('\n')
        .slice(-30)
        .join('\n');
      reject(new Error(`kpm: ${command} ${args.join(' ')} ${how}\n${tail}`));
    });
  });
}

/** Runs one step of a build, logging its start and its time: `images: <what> (<n> s)`. */
export async function timedStep<T>(
  progress: Progress,
  what: string,
  step: () => Promise<T>,
): Promise<T> {
  const started = Date.now();
  progress(`images: ${what}…`);
  const result = await step();
  progress(`images: ${what}: done in ${seconds(started)} s`);
  return result;
}

export function seconds(since: number): string {
  return ((Date.now() - since) / 1000).toFixed(1);
}
