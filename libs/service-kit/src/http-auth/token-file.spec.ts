import { parseTokenFile, tokenDigest } from './token-file';

const TOKEN = 'a'.repeat(16);

describe('parseTokenFile', () => {
  it('keeps each user by the digest of its token, skipping comments and blank lines', () => {
    const users = parseTokenFile('/t', `# crew\n\n${TOKEN} shifter\n  ${'b'.repeat(40)}\trc  \n`);
    expect([...users.values()]).toEqual(['shifter', 'rc']);
    expect(users.get(tokenDigest(TOKEN))).toBe('shifter');
    expect([...users.keys()].join()).not.toContain(TOKEN);
  });

  it.each<[string, string, RegExp]>([
    ['a line without user', `${TOKEN}\n`, /line 1: must be "<token> <user>"/],
    ['a short token', `# x\nshort shifter\n`, /line 2: the token must be at least 16/],
    ['a bad user', `${TOKEN} shift;er\n`, /line 1: the user must be a user name/],
    ['a token twice', `${TOKEN} a\n${TOKEN} b\n`, /line 2: the token of an earlier line again/],
    ['no token at all', '# nobody yet\n', /holds no token/],
  ])('refuses %s, naming the file and line but not the token', (_, text, problem) => {
    let message = '';
    try {
      parseTokenFile('/etc/kpm/tokens', text);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(problem);
    expect(message).toMatch(/^http\.auth\.tokenFile \(\/etc\/kpm\/tokens\)/);
    expect(message).not.toContain(TOKEN);
    expect(parseTokenFile('/t', `${TOKEN} shifter\n`).size).toBe(1);
  });
});
