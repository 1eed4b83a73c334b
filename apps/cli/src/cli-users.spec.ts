/**
 * One meaning per flag: `--as <user>` is who acts, `--owner <user>` selects processes by owner.
 * The client is replaced by a recorder, so these runs show what each command would send and as
 * whom, without a broker.
 */
import { connectProcessManager } from '@kpm/client';
import { runCli } from './main';

jest.mock('@kpm/client', () => ({
  ...jest.requireActual<object>('@kpm/client'),
  connectProcessManager: jest.fn(),
}));

const connect = jest.mocked(connectProcessManager);
const sent = { commandId: 'c-1', session: 'run-1' };
const client = {
  terminate: jest.fn().mockResolvedValue({ ...sent, type: 'terminate' }),
  kill: jest.fn().mockResolvedValue({ ...sent, type: 'kill' }),
  flush: jest.fn().mockResolvedValue({ ...sent, type: 'flush', completion: { status: 'ok' } }),
  ps: jest.fn().mockResolvedValue([]),
  close: jest.fn().mockResolvedValue(undefined),
};

/** The acting user each client was opened with. */
const actingUsers = () => connect.mock.calls.map(([options]) => options.user);

let env: NodeJS.ProcessEnv;
beforeEach(() => {
  env = process.env;
  process.env = { ...env, KPM_USER: 'me', KPM_KAFKA_BROKERS: 'localhost:1' };
  jest.clearAllMocks();
  connect.mockReturnValue(client as unknown as ReturnType<typeof connectProcessManager>);
  jest.spyOn(console, 'log').mockImplementation(() => undefined);
});
afterEach(() => {
  process.env = env;
  jest.restoreAllMocks();
});

describe('kpm terminate', () => {
  it('--as alice terminates as alice', async () => {
    expect(await runCli(['terminate', '--session', 'run-1', '--as', 'alice'])).toBe(0);
    expect(client.terminate).toHaveBeenCalledWith(
      expect.objectContaining({ session: 'run-1', user: 'alice' }),
      expect.anything(),
    );
    expect(actingUsers()).toEqual(['alice']);
  });

  it('without --as terminates as KPM_USER', async () => {
    expect(await runCli(['terminate', '--session', 'run-1'])).toBe(0);
    expect(client.terminate).toHaveBeenCalledWith(
      expect.objectContaining({ user: 'me' }),
      expect.anything(),
    );
  });
});

describe('kpm flush', () => {
  it('--owner alice flushes only the processes alice owns, acting as you', async () => {
    expect(await runCli(['flush', '--session', 'run-1', '--owner', 'alice', '--json'])).toBe(0);
    expect(client.flush).toHaveBeenCalledWith(
      expect.objectContaining({ session: 'run-1', user: 'alice' }),
      expect.objectContaining({ wait: true }),
    );
    expect(actingUsers()).toEqual(['me']);
  });

  it('--owner alice over all sessions asks ps for the processes alice owns', async () => {
    expect(await runCli(['flush', '--owner', 'alice'])).toBe(0);
    expect(client.ps).toHaveBeenCalledWith(expect.objectContaining({ user: 'alice' }), {
      timeoutMs: undefined,
    });
  });

  it('--as alice flushes as alice without filtering by owner', async () => {
    expect(await runCli(['flush', '--session', 'run-1', '--as', 'alice', '--json'])).toBe(0);
    expect(client.flush).toHaveBeenCalledWith(
      expect.objectContaining({ session: 'run-1', user: undefined }),
      expect.anything(),
    );
    expect(actingUsers()).toEqual(['alice']);
  });
});

describe('kpm kill', () => {
  it('--as and --owner keep their own meanings side by side', async () => {
    const argv = ['kill', '--session', 'run-1', '--owner', 'bob', '--as', 'alice'];
    expect(await runCli(argv)).toBe(0);
    expect(client.kill).toHaveBeenCalledWith(
      expect.objectContaining({ query: expect.objectContaining({ user: 'bob' }) }),
      expect.anything(),
    );
    expect(actingUsers()).toEqual(['alice']);
  });
});

describe('the retired --user', () => {
  it.each([
    [['terminate', '--session', 'run-1', '--user', 'alice']],
    [['flush', '--user', 'alice']],
    [['kill', '--session', 'run-1', '--user', 'alice']],
  ])('kpm %j sends nothing and exits 2', async (argv) => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(await runCli(argv)).toBe(2);
    expect(connect).not.toHaveBeenCalled();
  });
});
