import { userInfo } from 'node:os';
import { localUser } from './client-options';

jest.mock('node:os', () => ({
  ...jest.requireActual<typeof import('node:os')>('node:os'),
  userInfo: jest.fn(),
}));
const mockedUserInfo = userInfo as jest.MockedFunction<typeof userInfo>;

describe('localUser', () => {
  it('is the login name', () => {
    mockedUserInfo.mockReturnValue({ username: 'alice' } as ReturnType<typeof userInfo>);
    expect(localUser()).toBe('alice');
  });

  it.each([
    { USER: 'bob', expected: 'bob' },
    { USER: undefined, expected: `uid-${process.getuid!()}` },
  ])(
    'is USER, else the uid, for a numeric user with no passwd entry (USER=$USER)',
    ({ USER, expected }) => {
      mockedUserInfo.mockImplementation(() => {
        throw Object.assign(new Error('ENOENT: no such file or directory, uv_os_get_passwd'), {
          code: 'ENOENT',
        });
      });
      const saved = process.env.USER;
      if (USER === undefined) delete process.env.USER;
      else process.env.USER = USER;
      try {
        expect(localUser()).toBe(expected);
      } finally {
        if (saved === undefined) delete process.env.USER;
        else process.env.USER = saved;
      }
    },
  );
});
