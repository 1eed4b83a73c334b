import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { repoRoot } from '@kpm/stack/paths';

export interface PythonRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The project's Python (scripts/python-env.sh: a venv under KPM_HOME, created once). */
export async function projectPython(): Promise<string> {
  // A developer may point at a venv of their own (same requirements) instead of the shared one.
  if (process.env.KPM_TEST_PYTHON) return process.env.KPM_TEST_PYTHON;
  const { stdout } = await run(join(repoRoot(), 'scripts', 'python-env.sh'), [], 10 * 60_000);
  return stdout.trim();
}

/** Runs a Python script to its end; a non-zero exit is a result, not an error. */
export function runPython(
  python: string,
  script: string,
  args: string[],
  timeoutMs = 5 * 60_000,
  env: Record<string, string> = {},
): Promise<PythonRun> {
  return run(python, [join(repoRoot(), script), ...args], timeoutMs, env);
}

/**
 * Runs a Python script that stops at gates: each line it prints starting `{"gate"` is handed to
 * `atGate`, and once that resolves the script is told to go on (a line on its stdin). The gate
 * lines are left out of the run's stdout.
 */
export function runPythonGated(
  python: string,
  script: string,
  args: string[],
  atGate: (gate: Record<string, string>) => Promise<void>,
  timeoutMs = 5 * 60_000,
): Promise<PythonRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [join(repoRoot(), script), ...args], {
      cwd: repoRoot(),
      env: { ...process.env, PYTHONUNBUFFERED: '1' },
      timeout: timeoutMs,
    });
    const out: string[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{"gate"')) return void out.push(line);
      atGate(JSON.parse(line) as Record<string, string>).then(
        () => child.stdin.write('\n'),
        (error: unknown) => {
          stderr += `gate ${line} failed: ${String(error)}\n`;
          child.kill();
        },
      );
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, stdout: out.join('\n'), stderr }));
  });
}

/** Runs `python -m <module> …` (pytest) from the repository's root. */
export function runPythonModule(
  python: string,
  module: string,
  args: string[],
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<PythonRun> {
  return run(python, ['-m', module, ...args], timeoutMs, env);
}

function run(
  command: string,
  args: string[],
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<PythonRun> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        cwd: repoRoot(),
        env: { ...process.env, ...env, PYTHONUNBUFFERED: '1' },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        if (error && code === -1)
          return reject(new Error(`${command}: ${error.message}\n${stderr}`));
        resolve({ code, stdout, stderr });
      },
    );
  });
}
