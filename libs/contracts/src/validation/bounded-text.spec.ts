import { boundedText } from './bounded-text';

describe('boundedText', () => {
  it.each([
    ['short text', 'session-a', 20, 'session-a'],
    ['control characters', 'a\nb\u0000c\u001b[31m', 20, 'a?b?c?[31m'],
    ['exactly the maximum', 'x'.repeat(20), 20, 'x'.repeat(20)],
    ['over the maximum', 'x'.repeat(30), 20, 'xxxxxx…(30 characters)'.slice(-20)],
    ['far over the maximum', 'y'.repeat(5_000_000), 24, 'yyy…(5000000 characters)'],
  ])('%s', (_, text, max, expected) => {
    const bounded = boundedText(text, max);
    expect(bounded).toBe(expected);
    expect(bounded.length).toBeLessThanOrEqual(max);
  });
});
