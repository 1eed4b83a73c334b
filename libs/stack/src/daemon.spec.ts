import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@kpm/common';
import { Daemon, isAlive } from './daemon';

describe('Daemon.signalAndWait: the faults of `kpm stack node`', () => {
  let dir: string;
  let daemon: Daemon;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kpm-daemon-'));
    daemon = new Daemon('sleeper', { run: join(dir, 'run'), logs: join(dir, 'logs') });
  });

  afterEach(async () => {
    await daemon.stop(1000);
    rmSync(dir, { recursive: true, force: true });
  });

  it('signals its own pid alone and waits until it exited; its process group goes on', async () => {
    // A shell leading its group, with a child in the same group: the child stands for a shim.
    daemon.start('sh', ['-c', 'sleep 60 & echo $! > child.pid; wait'], { cwd: dir });
    const pid = daemon.pid()!;
    const child = await childPid(join(dir, 'child.pid'));
    expect(await daemon.signalAndWait('SIGKILL')).toBe(pid);
    expect(isAlive(pid)).toBe(false);
    expect(daemon.isRunning()).toBe(false);
    expect(isAlive(child)).toBe(true);
    process.kill(child, 'SIGKILL');
  });

  it('refuses when it is not running, naming its pid file', async () => {
    await expect(daemon.signalAndWait('SIGTERM')).rejects.toThrow(
      `kpm: sleeper is not running (no live pid in ${join(dir, 'run', 'sleeper.pid')})`,
    );
  });
});

/** The child's pid, once the shell has written it. */
function childPid(file: string): Promise<number> {
  return eventually(() => Number(readFileSync(file, 'utf8').trim()) || false, {
    what: 'the child pid',
    timeoutMs: 5000,
  });
}
