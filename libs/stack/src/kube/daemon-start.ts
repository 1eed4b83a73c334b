import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Daemon } from '../daemon';
import { stackPaths } from '../paths';
import type { Progress } from './go-build';

/**
 * Starts `daemon` unless it already runs with the same binary, flags and `inputs` (e.g. a config
 * file's content); a changed one is restarted, so an upgrade or a new flag takes effect on the
 * next `up`. A running process without a recorded fingerprint is adopted as it is.
 */
export async function startOrRestart(
  daemon: Daemon,
  binary: string,
  args: string[],
  progress: Progress,
  inputs: string[] = [],
): Promise<void> {
  const file = join(stackPaths.run(), `${daemon.name}.fingerprint`);
  const fingerprint = createHash('sha256')
    .update([binary, ...args, ...inputs].join('\0'))
    .digest('hex');
  if (daemon.isRunning()) {
    const recorded = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (recorded === undefined) writeFileSync(file, fingerprint);
    if (recorded === undefined || recorded === fingerprint) return;
    progress(`${daemon.name}: binary or configuration changed, restarting`);
    await daemon.stop();
  }
  daemon.start(binary, args);
  writeFileSync(file, fingerprint);
  progress(`${daemon.name}: started (pid ${daemon.pid()}), log ${daemon.logFile}`);
}
