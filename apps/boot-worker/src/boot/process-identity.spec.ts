import { homeOf, processEnv, runAsOf, runAsRefusal } from './process-identity';

const RUN_AS = { runAsUsers: [{ user: 'alice', uid: 1000, gid: 1001 }] };
const WITH_DEFAULT = { ...RUN_AS, defaultRunAs: { uid: 65534, gid: 65533 } };

type Ids = { uid?: number; gid?: number };

describe('runAsOf: drunc runs every pod as the user who booted it', () => {
  it.each<[string, Ids, string, typeof WITH_DEFAULT | typeof RUN_AS, Ids]>([
    [
      'the booting user’s uid and gid from runAsUsers',
      {},
      'alice',
      RUN_AS,
      { uid: 1000, gid: 1001 },
    ],
    [
      'a user not listed, no default: none (refused off the privileged path)',
      {},
      'bob',
      RUN_AS,
      {},
    ],
    [
      'a user not listed: the operator’s default',
      {},
      'bob',
      WITH_DEFAULT,
      { uid: 65534, gid: 65533 },
    ],
    [
      'a listed user: the entry, not the default',
      {},
      'alice',
      WITH_DEFAULT,
      { uid: 1000, gid: 1001 },
    ],
    [
      'the process’s own uid and gid win',
      { uid: 2000, gid: 2001 },
      'alice',
      WITH_DEFAULT,
      { uid: 2000, gid: 2001 },
    ],
    [
      'the process’s own uid alone: the user’s gid (never the image’s group)',
      { uid: 2000 },
      'alice',
      RUN_AS,
      { uid: 2000, gid: 1001 },
    ],
    [
      'the process’s own gid alone: the default’s uid (never the image’s user)',
      { gid: 2001 },
      'bob',
      WITH_DEFAULT,
      { uid: 65534, gid: 2001 },
    ],
    [
      'the process’s own gid alone, nothing else: no uid',
      { gid: 2001 },
      'bob',
      RUN_AS,
      { gid: 2001 },
    ],
  ])('%s', (_, spec, user, settings, expected) => {
    expect(runAsOf(spec, user, settings)).toEqual(expected);
  });
});

describe('runAsRefusal: never root by default', () => {
  it('refuses a process with neither ids, naming the user and each setting that would fix it', () => {
    expect(runAsRefusal({}, 'daq', RUN_AS, false)).toBe(
      'user "daq" has no uid or gid to run the process as, and kpm runs no DAQ process as its ' +
        "image's user (root in most images): map the user in podManagement.runAsUsers " +
        '(KPM_RUN_AS_USERS=daq:<uid>:<gid>), set podManagement.defaultRunAs ' +
        '(KPM_DEFAULT_RUN_AS=<uid>:<gid>), or give the process its own uid and gid ' +
        '(within podManagement.runAsUidRange and runAsGidRange)',
    );
  });

  it.each<[string, Ids, string, typeof RUN_AS, boolean, string | undefined]>([
    ['mapped', {}, 'alice', RUN_AS, false, undefined],
    ['the default', {}, 'daq', WITH_DEFAULT, false, undefined],
    ['its own ids', { uid: 2000, gid: 2000 }, 'daq', RUN_AS, false, undefined],
    ['a uid alone', { uid: 2000 }, 'daq', RUN_AS, false, 'no gid'],
    ['a gid alone', { gid: 2000 }, 'daq', RUN_AS, false, 'no uid'],
    ['nothing, on the privileged path: its image’s user', {}, 'daq', RUN_AS, true, undefined],
  ])('%s', (_, spec, user, settings, privileged, missing) => {
    const refusal = runAsRefusal(spec, user, settings, privileged);
    if (missing === undefined) expect(refusal).toBeUndefined();
    else expect(refusal).toContain(`user "${user}" has ${missing} to run the process as`);
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
