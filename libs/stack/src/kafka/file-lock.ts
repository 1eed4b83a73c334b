import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { isAlive } from '../daemon';

/**
 * Runs `fn` holding an exclusive lock file (with our pid in it) across processes: two `up`s at
 * once (a test run and `kpm stack up`) must not both install, format and start a broker. A lock
 * whose holder has died is taken over.
 */
export async function withFileLock<T>(
  file: string,
  fn: () => Promise<T>,
  timeoutMs = 15 * 60_000,
): Promise<T> {
  mkdirSync(dirname(file), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  while (!tryAcquire(file)) {
    if (Date.now() > deadline) {
      throw new Error(
        `kpm: ${file} is still held by pid ${holderOf(file) ?? '?'} after ${timeoutMs} ms`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  try {
    return await fn();
  } finally {
    rmSync(file, { force: true });
  }
}

function tryAcquire(file: string): boolean {
  try {
    const fd = openSync(file, 'wx');
    try {
      writeSync(fd, String(process.pid));
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (isStale(file)) rmSync(file, { force: true });
  return false;
}

function isStale(file: string): boolean {
  const holder = holderOf(file);
  if (holder !== undefined) return !isAlive(holder);
  // Empty: the holder is between creating and writing it, unless that was long ago.
  try {
    return Date.now() - statSync(file).mtimeMs > 5000;
  } catch {
    return false;
  }
}

function holderOf(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
