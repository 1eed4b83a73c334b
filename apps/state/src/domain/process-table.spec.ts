import { instance, podOf, SESSION, terminated, uuidOf } from './__fixtures__/facts';
import { ProcessTable } from './process-table';
import { instanceMatcher } from './process-table';
import type { ProcessQuery, ProcessTerminated } from '@kpm/contracts';

const termination = (name: string, code: number, life = 1) =>
  terminated(name, code, life).data as ProcessTerminated;

describe('ProcessTable', () => {
  it('marks the current pod DEAD and ignores duplicates', () => {
    const table = new ProcessTable();
    expect(table.booted(instance('ru-01'))).toMatchObject({ statusCode: 'RUNNING' });
    expect(table.booted(instance('ru-01'))).toBeUndefined();
    expect(table.terminated(termination('ru-01', 3))).toMatchObject({
      statusCode: 'DEAD',
      returnCode: 3,
    });
    expect(table.terminated(termination('ru-01', 3))).toBeUndefined();
    expect(table.booted(instance('ru-01'))).toBeUndefined(); // a late duplicate never resurrects it
    expect(table.get(uuidOf('ru-01'))!.statusCode).toBe('DEAD');
  });

  it('leaves the row alone for a termination of another pod of the uuid', () => {
    const table = new ProcessTable();
    table.booted(instance('ru-01', 2));
    expect(table.terminated(termination('ru-01', 143, 1))).toBeUndefined();
    expect(table.get(uuidOf('ru-01'))).toMatchObject({
      podUid: podOf('ru-01', 2),
      statusCode: 'RUNNING',
    });
  });

  it('knows a process from its termination alone, and completes it when its boot fact comes', () => {
    const table = new ProcessTable();
    expect(table.terminated(termination('ru-09', 1))).toMatchObject({
      statusCode: 'DEAD',
      role: 'unknown',
    });
    const merged = table.booted(instance('ru-09'));
    expect(merged).toMatchObject({ statusCode: 'DEAD', returnCode: 1, role: 'application' });
  });

  it('flushes only DEAD processes', () => {
    const table = new ProcessTable();
    table.booted(instance('ru-01'));
    table.booted(instance('ru-02'));
    table.terminated(termination('ru-02', 0));
    expect(table.flush({}).map((p) => p.uuid)).toEqual([uuidOf('ru-02')]);
    expect(table.all().map((p) => p.uuid)).toEqual([uuidOf('ru-01')]);
  });
});

// The matching rules are the contract's (process-query-match.spec.ts); this checks a row is
// read through its metadata.
describe('instanceMatcher', () => {
  const ru = instance('ru-01');
  it.each<[string, ProcessQuery, boolean]>([
    ['an empty query', {}, true],
    ['its name', { names: ['^ru-01$'] }, true],
    ['its session and user', { session: SESSION, user: 'daq' }, true],
    ['another user', { user: 'other' }, false],
    ['its uuid', { uuids: [uuidOf('ru-01')] }, true],
    ['another uuid', { uuids: [uuidOf('ru-02')] }, false],
  ])('%s', (_case, query, matches) => {
    expect(instanceMatcher(query)(ru)).toBe(matches);
  });
});
