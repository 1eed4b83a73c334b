import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from './daemon';
import { stackPaths } from './paths';

/**
 * Runs `fn` while holding `.kpm/run/<name>.lock`, so two concurrent `up`s (a CLI and a test run's
 * global setup) do not both install, build or start a process whose pid file only one of them
 * can record. A lock whose holder died is taken over.
 */
export async function withFileLock<T>(
  name: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  // Callers in one process queue here; the file lock orders processes.
  const previous = inProcess.get(name) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(() => holdFileLock(name, fn, options));
  inProcess.set(name, run);
  try {
    return await run;
  } finally {
    if (inProcess.get(name) === run) inProcess.delete(name);
  }
}

export interface LockOptions {
  timeoutMs?: number;
  onWait?: (holder: number) => void;
}

const inProcess = new Map<string, Promise<unknown>>();

async function holdFileLock<T>(
  name: string,
  fn: () => Promise<T>,
  options: LockOptions,
): Promise<T> {
  mkdirSync(stackPaths.run(), { recursive: true });
  const file = join(stackPaths.run(), `${name}.lock`);
  // A cold first `up` builds for many minutes while the other waits.
  const deadline = Date.now() + (options.timeoutMs ?? 45 * 60000);
  let announced = false;
  for (;;) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readHolder(file);
    if (holder === undefined || holder === process.pid || !isAlive(holder)) {
      rmSync(file, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`kpm: ${file} still held by pid ${holder}`);
    if (!announced) options.onWait?.(holder);
    announced = true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  try {
    return await fn();
  } finally {
    if (readHolder(file) === process.pid) rmSync(file, { force: true });
  }
}

function readHolder(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
