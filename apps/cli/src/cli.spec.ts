/**
 * The command line's contract with scripts: usage errors exit 2 with a message naming the flag,
 * a session file the contract refuses exits 1 naming lines, and every command has --help. None
 * of these reach the network: they fail before a client would publish anything.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProgram, runCli } from './main';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(...argv: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const capture = (sink: string[]) => (chunk: unknown) => {
    sink.push(String(chunk));
    return true;
  };
  const spies = [
    jest.spyOn(process.stdout, 'write').mockImplementation(capture(out)),
    jest.spyOn(process.stderr, 'write').mockImplementation(capture(err)),
    jest
      .spyOn(console, 'log')
      .mockImplementation((...a: unknown[]) => out.push(`${a.join(' ')}\n`)),
    jest
      .spyOn(console, 'error')
      .mockImplementation((...a: unknown[]) => err.push(`${a.join(' ')}\n`)),
  ];
  try {
    const code = await runCli(argv);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

describe('kpm usage errors (exit 2)', () => {
  it.each([
    [['nonsense'], /unknown command 'nonsense'/],
    [['kill'], /kill: say what to kill: --session S .* or --uuid U/],
    [
      ['kill', '--session', 'run-1', '--grace', 'soon'],
      /'--grace <seconds>' argument 'soon' is invalid\. must be a whole number of seconds/,
    ],
    [['kill', '--session', 'run-1', '--grace=1.5'], /must be a whole number of seconds/],
    [
      ['kill', '--session', 'run-1', '--grace', '7200'],
      /kill: --grace: must be at most 3600 seconds/,
    ],
    [['kill', '--session', 'Run_1'], /kill: --session: must be a DNS-1123 label/],
    [
      ['kill', '--session', 'run-1', '--name', '(a)\\1'],
      /kill: --name: regular expression "\(a\)\\\\1" is not valid RE2 syntax/,
    ],
    [['kill', '--session', 'run-1', '--frobnicate'], /unknown option '--frobnicate'/],
    [['terminate'], /required option '--session <name>' not specified/],
    [['terminate', '--session', 'run-1', '--as', 'a b'], /terminate: --as: must be a user name/],
    [['kill', '--session', 'run-1', '--as', 'a b'], /kill: --as: must be a user name/],
    [['kill', '--session', 'run-1', '--owner', 'a b'], /kill: --owner: must be a user name/],
    [['ps', '--owner', 'a b'], /ps: --owner: must be a user name/],
    [
      ['terminate', '--session', 'run-1', '--user', 'alice'],
      /terminate: --user is no longer accepted \(it meant "act as" on some commands and "filter by owner" on others\): use --as <user> to act as that user\n/,
    ],
    [
      ['boot', '-f', 'session.yaml', '--user', 'alice'],
      /boot: --user is no longer accepted .*: use --as <user> to act as that user\n/,
    ],
    [
      ['flush', '--user', 'alice'],
      /flush: --user is no longer accepted .*: use --as <user> to act as that user, or --owner <user> to select the processes that user owns\n/,
    ],
    [
      ['ps', '--user', 'alice'],
      /ps: --user is no longer accepted .*: use --owner <user> to select the processes that user owns\n/,
    ],
    [
      ['restart'],
      /restart: say what to restart: --uuid U \(repeatable\) or --session S with --name RE/,
    ],
    [['restart', '--uuid', 'ru-01'], /restart: --uuid: each uuid must be a UUID/],
    [['ps', '--name', '(?=x)'], /ps: --name: regular expression/],
    [['logs'], /logs: say whose logs: --uuid U, or --session S with --name RE/],
    [
      ['logs', '--uuid', '0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c', '--tail', '0'],
      /'--tail <lines>' argument '0' is invalid\. must be a whole number above 0/,
    ],
    [
      ['logs', '--uuid', '0b0e1c9a-4c5e-4a8a-9d55-8f1f0d7a2b3c', '--tail', '20000'],
      /logs: --tail: must be at most 10000/,
    ],
    [
      ['tail', '--topic', 'everything'],
      /argument 'everything' is invalid\. must be one of commands, process-events/,
    ],
    [['boot'], /required option '-f, --file <session.yaml>' not specified/],
    [['boot', '-f', 'no/such/file.yaml'], /boot: --file: no such file: no\/such\/file\.yaml/],
  ])('kpm %j', async (argv, message) => {
    const { code, stderr } = await run(...argv);
    expect(stderr).toMatch(message);
    expect(code).toBe(2);
  });
});

describe('kpm boot with a bad session file (exit 1)', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'kpm-cli-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists every problem with file, line, column and field', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      [
        'session: run-1',
        'processes:',
        '  - name: RU 01',
        '    executableAndArguments: []',
        '    imag: x',
      ].join('\n'),
    );
    const { code, stderr } = await run('boot', '-f', file);
    expect(code).toBe(1);
    expect(stderr).toContain(`kpm: boot: ${file} is not a valid session file:`);
    expect(stderr).toContain(
      `${file}:3:11: processes[0].name: must be a process name of 1 to 253 characters without whitespace`,
    );
    expect(stderr).toContain(`${file}:4:29: processes[0].executableAndArguments:`);
    expect(stderr).toContain(`${file}:5:5: processes[0].imag: is not a known field`);
  });

  it('blames a bad --session on the command line', async () => {
    const file = join(dir, 'ok.yaml');
    writeFileSync(
      file,
      'session: run-1\nprocesses:\n  - name: a\n    executableAndArguments: [{exec: x}]\n',
    );
    const { code, stderr } = await run('boot', '-f', file, '--session', 'Not OK');
    expect(code).toBe(1);
    expect(stderr).toMatch(/session: must be a DNS-1123 label.*\(given on the command line\)/);
  });
});

describe('kpm --help', () => {
  const commands = buildProgram().commands.flatMap((c) =>
    c.commands.length > 0 ? c.commands.map((s) => `${c.name()} ${s.name()}`) : [c.name()],
  );

  it.each(commands)('kpm %s --help exits 0 with usage', async (command) => {
    const { code, stdout } = await run(...command.split(' '), '--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: kpm /);
  });

  it('lists the exit codes', async () => {
    expect((await run('--help')).stdout).toContain(
      'Exit codes: 0 done, 1 failed or rejected, 2 usage, 3 timed out.',
    );
  });
});
