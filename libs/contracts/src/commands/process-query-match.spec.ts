import type { ProcessQuery } from './process-query';
import {
  isEmptyProcessQuery,
  processQueryMatcher,
  type QueriedProcess,
} from './process-query-match';

const uuid = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;

const PROCESSES: QueriedProcess[] = [
  { uuid: uuid(1), name: 'ru-01', session: 'run-7', user: 'alice' },
  { uuid: uuid(2), name: 'ru-02', session: 'run-8', user: 'bob' },
  { uuid: uuid(3), name: 'logger', session: 'run-7' },
];

/** JSON producers may send `null` for an optional field; it passes validation as absent. */
const nulls = { session: null, user: null, uuids: null, names: null } as unknown as ProcessQuery;

describe('isEmptyProcessQuery', () => {
  it.each<[string, ProcessQuery, boolean]>([
    ['no field', {}, true],
    ['empty lists', { uuids: [], names: [] }, true],
    ['null fields', nulls, true],
    ['a session', { session: 'run-7' }, false],
    ['a user', { user: 'alice' }, false],
    ['a uuid', { uuids: [uuid(1)] }, false],
    ['a name', { names: ['ru'] }, false],
  ])('%s', (_case, query, empty) => {
    expect(isEmptyProcessQuery(query)).toBe(empty);
  });
});

describe('processQueryMatcher', () => {
  it.each<[string, ProcessQuery, string[]]>([
    ['an empty query matches every process', {}, ['ru-01', 'ru-02', 'logger']],
    ['null and empty selectors are absent', { ...nulls, uuids: [] }, ['ru-01', 'ru-02', 'logger']],
    ['a session', { session: 'run-7' }, ['ru-01', 'logger']],
    ['a user', { user: 'alice' }, ['ru-01']],
    ['uuids', { uuids: [uuid(2), uuid(3)] }, ['ru-02', 'logger']],
    ['a name is searched unanchored, like re.search', { names: ['u-0'] }, ['ru-01', 'ru-02']],
    ['anchors are honoured', { names: ['^u-0'] }, []],
    ['any one name may match', { names: ['nope', 'logg'] }, ['logger']],
    ['selectors are ANDed', { session: 'run-7', names: ['ru-'] }, ['ru-01']],
    ['a user that differs excludes', { session: 'run-7', user: 'bob' }, []],
    ['a process without a user never matches a user', { user: 'nobody' }, []],
  ])('%s', (_case, query, expected) => {
    const matches = processQueryMatcher(query);
    expect(PROCESSES.filter(matches).map((p) => p.name)).toEqual(expected);
  });

  it('throws naming the pattern when given one validation would have refused', () => {
    expect(() => processQueryMatcher({ names: ['ru', '('] })).toThrow(
      /^ProcessQuery names\[1\]: regular expression "\(" is not valid RE2 syntax/,
    );
  });
});
