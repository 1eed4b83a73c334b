import { execFileSync } from 'node:child_process';
import { bootScript, shellWord } from './shell-command';

/** What bash really makes of a script: each argument of `printf '[%s]'`. */
const bash = (script: string, env: Record<string, string> = {}) =>
  execFileSync('/bin/bash', ['-c', script], { env: { PATH: process.env.PATH, ...env } }).toString();

describe('shellWord', () => {
  it.each([
    ['plain', '[plain]'],
    ['two words', '[two words]'],
    ['semi;colon && rm -rf /', '[semi;colon && rm -rf /]'],
    ['$(touch /tmp/kpm-pwned)', '[$(touch /tmp/kpm-pwned)]'],
    ['`id`', '[`id`]'],
    ['quote " and \\ backslash', '[quote " and \\ backslash]'],
    ["single ' quote", "[single ' quote]"],
    ['*', '[*]'],
    ['price $5', '[price $5]'],
    ['', '[]'],
  ])('keeps %j one literal word', (text, expected) => {
    expect(bash(`printf '[%s]' ${shellWord(text)}`)).toBe(expected);
  });

  it('still expands environment references, as drunc boot configurations expect', () => {
    expect(
      bash(`printf '[%s]' ${shellWord('${DAQ_AREA}/bin and $USER')}`, {
        DAQ_AREA: '/opt/daq area',
        USER: 'alice',
      }),
    ).toBe('[/opt/daq area/bin and alice]');
  });
});

describe('bootScript', () => {
  it('joins commands with && and execs the last one', () => {
    expect(
      bootScript([
        { exec: 'source', args: ['${DBT_AREA}/env.sh'] },
        { exec: 'daq_application', args: ['--name', 'ru-01'] },
      ]),
    ).toBe('"source" "${DBT_AREA}/env.sh" && exec "daq_application" "--name" "ru-01"');
  });

  it('does not exec a shell builtin', () => {
    expect(bootScript([{ exec: 'cd', args: ['/tmp'] }])).toBe('"cd" "/tmp"');
  });

  it('runs in bash: the first failure stops the rest, the last command replaces the shell', () => {
    expect(
      bash(
        bootScript([
          { exec: 'printf', args: ['a'] },
          { exec: 'printf', args: ['b'] },
        ]),
      ),
    ).toBe('ab');
    expect(() =>
      bash(
        bootScript([
          { exec: 'false', args: [] },
          { exec: 'printf', args: ['never'] },
        ]),
      ),
    ).toThrow();
    // exec'd: the last command's parent is this test process, not an intermediate bash.
    const parent = bash(bootScript([{ exec: 'sh', args: ['-c', 'echo $PPID'] }]));
    expect(parent.trim()).toBe(String(process.pid));
  });
});
