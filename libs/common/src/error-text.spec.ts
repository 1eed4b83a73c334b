import { errorText } from './error-text';

describe('errorText', () => {
  it.each<[string, unknown, string]>([
    ['an Error: its message', new TypeError('x is undefined'), 'x is undefined'],
    ['a string: itself', 'broker gone', 'broker gone'],
    ['anything else: as text', 42, '42'],
    ['nothing', undefined, 'undefined'],
  ])('%s', (_, error, text) => {
    expect(errorText(error)).toBe(text);
  });
});
