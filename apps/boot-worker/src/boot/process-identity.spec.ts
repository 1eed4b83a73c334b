import { homeOf, processEnv, runAsOf } from './process-identity';

const RUN_AS = { runAsUsers: [{ user: 'alice', uid: 1000, gid: 1001 }] };

describe('runAsOf: drunc runs every pod as the user who booted it', () => {
  it.each<[string, { uid?: number; gid?: number }, string, { uid?: number; gid?: number }]>([
    ['the booting user’s uid and gid from runAsUsers', {}, 'alice', { uid: 1000, gid: 1001 }],
    ['a user not listed: the image’s user', {}, 'bob', {}],
    [
      'the process’s own uid and gid win',
      { uid: 2000, gid: 2001 },
      'alice',
      { uid: 2000, gid: 2001 },
    ],
    ['the process’s own uid alone: no mapped gid mixed in', { uid: 2000 }, 'alice', { uid: 2000 }],
  ])('%s', (_, spec, user, expected) => {
    expect(runAsOf(spec, user, RUN_AS)).toEqual(expected);
  });
});

describe('processEnv: drunc’s USER, HOME and DOTDRUNC', () => {
  it('sets USER, HOME under the home base and DOTDRUNC in it', () => {
    expect(processEnv({ env: { A: '1' } }, 'alice', { homePathBase: '/nfs/home' })).toEqual({
      A: '1',
      USER: 'alice',
      HOME: '/nfs/home/alice',
      DOTDRUNC: '/nfs/home/alice/.drunc.json',
    });
  });

  it('overrides the process’s own HOME and USER, as drunc does', () => {
    const env = processEnv({ env: { HOME: '/tmp', USER: 'root' } }, 'alice', {
      homePathBase: '/nfs/home',
    });
    expect(env).toMatchObject({ HOME: '/nfs/home/alice', USER: 'alice' });
  });

  it('keeps the process’s own DOTDRUNC', () => {
    expect(processEnv({ env: { DOTDRUNC: '/etc/drunc.json' } }, 'alice', {}).DOTDRUNC).toBe(
      '/etc/drunc.json',
    );
  });

  it('homes users under /home without a home base', () => {
    expect(homeOf('bob', undefined)).toBe('/home/bob');
    expect(processEnv({}, 'bob', {})).toEqual({
      USER: 'bob',
      HOME: '/home/bob',
      DOTDRUNC: '/home/bob/.drunc.json',
    });
  });
});
