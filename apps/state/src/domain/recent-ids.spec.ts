import { RecentIds } from './recent-ids';

const kept = (ids: RecentIds, all: string[]) => all.filter((id) => ids.has(id));

describe('RecentIds', () => {
  it.each([
    { case: 'under the capacity', added: ['a', 'b'], kept: ['a', 'b'] },
    { case: 'at the capacity', added: ['a', 'b', 'c'], kept: ['a', 'b', 'c'] },
    { case: 'over it: the oldest goes', added: ['a', 'b', 'c', 'd', 'e'], kept: ['c', 'd', 'e'] },
    {
      case: 'a re-added id is the most recent',
      added: ['a', 'b', 'c', 'a', 'd'],
      kept: ['a', 'c', 'd'],
    },
  ])('keeps the last 3 ids ($case)', ({ added, kept: expected }) => {
    const ids = new RecentIds(3);
    for (const id of added) ids.add(id);
    expect(kept(ids, ['a', 'b', 'c', 'd', 'e'])).toEqual(expected);
    expect(ids.size).toBe(expected.length);
  });

  it('forgets nothing while suspended, and trims to the newest when resumed', () => {
    const ids = new RecentIds(2);
    ids.suspend();
    for (const id of ['a', 'b', 'c', 'd']) ids.add(id);
    expect(ids.size).toBe(4);
    ids.resume();
    expect(kept(ids, ['a', 'b', 'c', 'd'])).toEqual(['c', 'd']);
    ids.add('e');
    expect(kept(ids, ['c', 'd', 'e'])).toEqual(['d', 'e']);
  });

  it.each([0, -1, 2.5, Number.NaN])('refuses a capacity of %p, naming it', (capacity) => {
    expect(() => new RecentIds(capacity)).toThrow(/capacity must be a positive whole number/);
  });
});
