import type { CommandCompleted } from '@kpm/contracts';
import { CompletionCache } from './completion-cache';

const completion = (commandId: string, processes: number) =>
  ({
    commandId,
    processes: Array.from({ length: processes }, (_, i) => ({ uuid: `${commandId}-${i}` })),
  }) as unknown as CommandCompleted;

const kept = (cache: CompletionCache, ids: string[]) => ids.filter((id) => cache.get(id));

describe('CompletionCache', () => {
  it.each([
    { case: 'within both limits', sizes: [1, 2, 3], kept: ['a', 'b', 'c'], listed: 6 },
    {
      case: 'over the count: the oldest goes',
      sizes: [1, 1, 1, 1],
      kept: ['b', 'c', 'd'],
      listed: 3,
    },
    { case: 'over the processes: the oldest go', sizes: [4, 4, 4], kept: ['b', 'c'], listed: 8 },
    { case: 'one larger than the limit is kept alone', sizes: [2, 50], kept: ['b'], listed: 50 },
    {
      case: 'empty completions count once each',
      sizes: [0, 0, 0, 0],
      kept: ['b', 'c', 'd'],
      listed: 0,
    },
  ])(
    'keeps at most 3 completions and 10 processes ($case)',
    ({ sizes, kept: expected, listed }) => {
      const cache = new CompletionCache(3, 10);
      const ids = sizes.map((_, i) => String.fromCharCode(97 + i));
      sizes.forEach((size, i) => cache.put(completion(ids[i], size)));
      expect(kept(cache, ids)).toEqual(expected);
      expect(cache.processes).toBe(listed);
    },
  );

  it('replaces a completion read again (a re-read topic) without counting it twice', () => {
    const cache = new CompletionCache(3, 10);
    cache.put(completion('a', 4));
    cache.put(completion('b', 4));
    cache.put(completion('a', 4));
    expect(cache.processes).toBe(8);
    cache.put(completion('c', 2));
    expect(kept(cache, ['a', 'b', 'c'])).toEqual(['a', 'b', 'c']);
    cache.put(completion('d', 1));
    expect(kept(cache, ['a', 'b', 'c', 'd'])).toEqual(['a', 'c', 'd']);
  });
});

describe('CompletionCache: what it gives back', () => {
  it('gives back the completion as it was put, a fresh copy each time', () => {
    const cache = new CompletionCache(3, 10);
    const put = completion('a', 2);
    cache.put(put);
    expect(cache.get('a')).toEqual(put);
    expect(cache.get('a')).not.toBe(cache.get('a'));
    expect(cache.get('b')).toBeUndefined();
  });
});
