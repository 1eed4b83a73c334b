import { compileNamePattern, MAX_REGEX_LENGTH, namePatternError } from './name-pattern';

/** Names are DNS-1123 labels: at most 63 characters. */
const LONGEST_NAME = 63;

describe('name patterns (RE2 syntax, linear time)', () => {
  it.each([
    ['^ru-', 'ru-01', true],
    ['readout.*[0-9]', 'xreadout-7', true],
    ['ru-0[1-4]$', 'ru-05', false],
    ['^(ru|df)-\\d+$', 'df-12', true],
    ['a{2,3}b?', 'xaab', true],
    ['(a+)+$', 'aaaa', true],
    ['(a|ab)*c', 'ababc', true],
    ['(?P<x>ru)-', 'ru-1', true],
    ['(?i)^RU', 'ru-1', true],
  ])('accepts %s, searching it anywhere (on %s: %s)', (pattern, name, matches) => {
    const compiled = compileNamePattern(pattern);
    expect(compiled.ok && compiled.pattern.test(name)).toBe(matches);
  });

  it.each([
    ['(a)\\1', 'invalid escape sequence'],
    ['(?=a)b', 'unsupported Perl syntax'],
    ['(?<!a)b', 'invalid named capture'],
    ['(', 'missing closing )'],
    ['a{101}', 'repeats {101} times, at most {100} are allowed'],
    ['(.*){1,1000}[bc]', 'repeats {1000} times'],
    ['((a{10}){10}){11}', 'invalid repeat count'],
    ['a'.repeat(MAX_REGEX_LENGTH + 1), `at most ${MAX_REGEX_LENGTH}`],
  ])('refuses %s (%s)', (pattern, why) => {
    expect(namePatternError(pattern)).toContain(why);
  });

  it('accepts a pattern of exactly the maximum length', () => {
    expect(namePatternError('a'.repeat(MAX_REGEX_LENGTH))).toBeUndefined();
  });

  it.each([
    ['polynomial', '[^!]*'.repeat(10) + '!', 'a'.repeat(LONGEST_NAME)],
    ['exponential', '(a+)+$', 'a'.repeat(LONGEST_NAME - 1) + '!'],
    ['alternation', '(a|aa)+$', 'a'.repeat(LONGEST_NAME - 1) + '!'],
    ['nested quantifiers', '(.*){1,100}[bc]', 'a'.repeat(LONGEST_NAME)],
  ])('answers a %s pattern in under 100 ms on the longest name', (_, pattern, name) => {
    const started = performance.now();
    const compiled = compileNamePattern(pattern);
    const matched = compiled.ok && compiled.pattern.test(name);
    expect(performance.now() - started).toBeLessThan(100);
    expect(matched).toBe(false);
  });
});
