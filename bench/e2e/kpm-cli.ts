import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bundleCli } from '@kpm/stack/cli-bundle';
import { daqApplication } from '../../test/support/daq-application';
import { childNodeArgs } from '../../test/support/service-process';

const root = join(__dirname, '..', '..');

/**
 * A session file of `n` applications in drunc's tree shape (`0.<segment>.<n>`), or of the
 * processes given (a DUNE-shaped session).
 */
export function sessionFile(
  session: string,
  n: number,
  processes: readonly object[] = benchProcesses(n),
): string {
  const file = join(mkdtempSync(join(tmpdir(), 'kpm-bench-')), `${session}.yaml`);
  // JSON is YAML: the session file reader takes it as written.
  writeFileSync(file, JSON.stringify({ session, user: 'bench', processes }));
  return file;
}

/** `n` processes in drunc's tree shape, as the session files and the burst boot them. */
export function benchProcesses(n: number) {
  return Array.from({ length: n }, (_, i) =>
    daqApplication(`ru-${String(i).padStart(5, '0')}`, `0.${1 + (i % 10)}.${i}`),
  );
}

/** Compiles the CLI into dist/ (about 15 s), so the runs below time this checkout's CLI. */
export async function buildCompiledCli(): Promise<void> {
  await promisify(execFile)(join(root, 'node_modules', '.bin', 'nest'), ['build', 'cli'], {
    cwd: root,
  });
  await bundleCli(root);
}

export interface CliRun {
  ms: number;
  /** Wall clock (ms since the epoch) at the spawn and at the exit, to set beside records' CreateTime. */
  startedAtMs: number;
  exitedAtMs: number;
  exitCode: number;
  stderr: string;
}

/**
 * Runs `kpm <args>` as a user of the package would: bin/kpm.js running the compiled CLI
 * (`KPM_CLI_COMPILED=1`, compiled by {@link buildCompiledCli} at the start of the run). Its wall
 * time and exit code. `bin`: another checkout's bin/kpm.js, compiled there (`bench:cli`'s
 * baseline).
 */
export function runCli(
  args: string[],
  env: Record<string, string>,
  bin: string = join(root, 'bin', 'kpm.js'),
): Promise<CliRun> {
  const started = performance.now();
  const startedAtMs = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...childNodeArgs(), bin, ...args], {
      cwd: root,
      env: { ...process.env, ...env, KPM_USER: 'bench', KPM_CLI_COMPILED: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('exit', (code) =>
      resolve({
        ms: performance.now() - started,
        startedAtMs,
        exitedAtMs: Date.now(),
        exitCode: code ?? 1,
        stderr,
      }),
    );
  });
}
