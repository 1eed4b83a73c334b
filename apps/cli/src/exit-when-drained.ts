/**
 * Ends the process once stdout and stderr have handed everything to the OS. Writes to a pipe are
 * asynchronous in Node: `process.exit` right after a large `console.log` keeps only what fitted in
 * the pipe's buffer (64 KiB), so `kpm ps --json | jq` would read truncated JSON.
 */
export async function exitWhenDrained(code: number): Promise<never> {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(code);
}

/**
 * A reader that closes early (`kpm ps | head`) is not a failure of ours: the rest of the output
 * is dropped and the command ends with its own exit code, instead of a crash on EPIPE.
 */
export function tolerateClosedReaders(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
}

/** Resolves when every chunk written so far has been flushed, or the stream is gone. */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || !stream.writable) return Promise.resolve();
  // Chunks flush in order, so this empty one's callback runs after all earlier ones (with an
  // error instead when the reader has gone).
  return new Promise((resolve) => stream.write('', () => resolve()));
}
