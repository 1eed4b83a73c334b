import { MAX_REGEX_LENGTH, unsafeRegexReason } from './safe-regex';

describe('unsafeRegexReason', () => {
  it.each([
    '^ru-',
    'readout.*[0-9]',
    'ru-0[1-4]$',
    '^(ru|df)-\\d+$',
    'a{2,3}b?',
    '[(]+x',
    '\\(a+\\)+',
    'x(?:ab)?y*',
  ])('accepts %s', (pattern) => {
    expect(unsafeRegexReason(pattern)).toBeUndefined();
  });

  it.each([
    ['(a+)+$', 'nests a repetition'],
    ['(.*a){20}', 'nests a repetition'],
    ['(\\w+\\s?)*$', 'nests a repetition'],
    ['(.*)*', 'nests a repetition'],
    ['((ab)*c)+', 'nests a repetition'],
    ['(a|ab)*', 'repeats an alternation'],
    ['((a|b)c)+', 'repeats an alternation'],
    ['(a)\\1', 'backreference'],
    ['(?<x>a)\\k<x>', 'backreference'],
    ['(', 'does not compile'],
    ['a'.repeat(MAX_REGEX_LENGTH + 1), `at most ${MAX_REGEX_LENGTH}`],
    ['a*'.repeat(26), 'more than 25 repetitions'],
  ])('rejects %s (%s)', (pattern, why) => {
    expect(unsafeRegexReason(pattern)).toContain(why);
  });

  it('treats ? and {1} as no repetition, so a quantified optional group is fine', () => {
    expect(unsafeRegexReason('(ab?)?c')).toBeUndefined();
    expect(unsafeRegexReason('(a{1})+')).toBeUndefined();
  });
});
