import type { ProcessInstance } from '@kpm/contracts';
import { instance } from '../domain/__fixtures__/facts';
import { sameData, withSharedParts } from './shared-parts';

/** A row as parsed from its own record: every object its own. */
function parsed(overrides: Partial<ProcessInstance> = {}): ProcessInstance {
  return JSON.parse(JSON.stringify({ ...instance('ru-1'), ...overrides })) as ProcessInstance;
}

describe('withSharedParts', () => {
  it('takes the shard’s description and restriction objects when they are equal', () => {
    const own = parsed();
    const row = parsed({ statusCode: 'DEAD', returnCode: 143 });
    const shared = withSharedParts(row, own);
    expect(shared.description).toBe(own.description);
    expect(shared.restriction).toBe(own.restriction);
    // The row's own facts stay the row's.
    expect(shared).toMatchObject({ statusCode: 'DEAD', returnCode: 143 });
    expect(shared).toEqual({ ...row, description: own.description, restriction: own.restriction });
  });

  it('keeps the row’s own description when it differs, and shares what is equal', () => {
    const own = parsed();
    const row = parsed({ restriction: { allowedHosts: ['np04-srv-002'] } });
    row.description.env.RUN = '43';
    const shared = withSharedParts(row, own);
    expect(shared.description).toBe(row.description);
    expect(shared.restriction).toBe(row.restriction);
    expect(shared).toBe(row);
    const sameHosts = parsed();
    sameHosts.description.env.RUN = '43';
    const half = withSharedParts(sameHosts, own);
    expect(half.description).toBe(sameHosts.description);
    expect(half.restriction).toBe(own.restriction);
  });

  it('leaves the row as it is when the shard holds no such process', () => {
    const row = parsed();
    expect(withSharedParts(row, undefined)).toBe(row);
  });
});

describe('sameData', () => {
  class Parsed {
    constructor(
      readonly exec: string,
      readonly dir?: string,
    ) {}
  }

  it.each<[string, unknown, unknown, boolean]>([
    [
      'a class a parse makes and the plain object of its record',
      new Parsed('a'),
      { exec: 'a' },
      true,
    ],
    ['a key holding undefined and an absent key', { a: 1, b: undefined }, { a: 1 }, true],
    ['different values', { a: 1 }, { a: 2 }, false],
    ['a missing key', { a: 1, b: 2 }, { a: 1 }, false],
    ['arrays in order', [1, { x: 'y' }], [1, { x: 'y' }], true],
    ['arrays out of order', [1, 2], [2, 1], false],
    ['an array and an object', [1], { 0: 1 }, false],
    ['null and an object', null, {}, false],
  ])('%s → %s', (_name, a, b, equal) => {
    expect(sameData(a, b)).toBe(equal);
    expect(sameData(b, a)).toBe(equal);
  });
});
