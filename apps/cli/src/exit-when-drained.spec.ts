/**
 * Output larger than a pipe's buffer reaches the reader whole: the process exits only after
 * stdout drained (before, `kpm ps --json | wc -c` printed 65536).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const FIXTURE = join(__dirname, 'testing', 'large-table.fixture.ts');
const MIB = 1024 * 1024;

interface Read {
  bytes: Buffer;
  stderr: string;
  code: number | null;
}

/**
 * Runs the fixture with stdout on a pipe; resolves to the bytes read, stderr and the exit code.
 * `closeAfterFirstChunk` closes the reading end early, as `kpm ps | head` does.
 */
function readThroughPipe(args: string[], closeAfterFirstChunk = false): Promise<Read> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', FIXTURE, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    const chunks: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (closeAfterFirstChunk) child.stdout.destroy();
    });
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ bytes: Buffer.concat(chunks), stderr: Buffer.concat(stderr).toString(), code }),
    );
  });
}

describe('output through a pipe', () => {
  it.each([
    ['a JSON listing', ['--json'], 2_000],
    ['a table', [], 2_000],
  ])('%s over 1 MiB arrives whole before the process exits', async (_what, flags, rows) => {
    const { bytes, code } = await readThroughPipe([String(rows), ...flags]);
    expect(code).toBe(0);
    expect(bytes.length).toBeGreaterThan(MIB);
    const text = bytes.toString('utf8');
    expect(text.endsWith('\n')).toBe(true);
    if (flags.includes('--json')) expect(JSON.parse(text)).toHaveLength(rows);
    else expect(text).toContain(`readout-application-${rows - 1}`);
  });

  it('a reader that closes early ends the command quietly with its own exit code', async () => {
    const { bytes, stderr, code } = await readThroughPipe(['2000', '--json'], true);
    expect(bytes.length).toBeLessThan(MIB);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
