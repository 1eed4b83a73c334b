import { spawn } from 'node:child_process';

export interface RunOptions {
  cwd?: string;
  timeoutMs?: number;
  /** Shown in the error when the program is not installed, e.g. "apt-get install maven". */
  installHint?: string;
}

/**
 * Runs a program to completion and resolves to its stdout. Tools such as Kafka's StorageTool
 * call System.exit, so they run here as subprocesses; a failure carries the output tail.
 */
export function runCommand(
  command: string,
  args: string[],
  options: RunOptions = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      output.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    const timer = options.timeoutMs
      ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
      : undefined;
    // Passwords on a command line (StorageTool's --add-scram) never reach an error message.
    const shown = `${command} ${args.join(' ')}`.replace(/password=[^,\]\s]+/g, 'password=…');
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (timer) clearTimeout(timer);
      const hint = options.installHint ? ` (${options.installHint})` : '';
      reject(
        error.code === 'ENOENT'
          ? new Error(`kpm: \`${command}\` is not on PATH${hint}`)
          : new Error(`kpm: could not run ${shown}: ${error.message}`),
      );
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (code === 0) return resolve(Buffer.concat(stdout).toString('utf8'));
      const how = signal ? `was killed by ${signal}` : `exited with ${code}`;
      const tail = lastLines(Buffer.concat(output).toString('utf8'), 40);
      reject(new Error(`kpm: ${shown} ${how}\n${tail}`));
    });
  });
}

export function lastLines(text: string, count: number): string {
  return text.trimEnd().split('\n').slice(-count).join('\n');
}
