import { logManagedSessions, managedSessionsText } from './managed-sessions';

describe('managed sessions at start', () => {
  it.each<[string[], string]>([
    [[], 'No active namespace created by kpm'],
    [['run-7'], 'Active namespaces created by kpm:\n - run-7'],
    [['run-7', 'run-8'], 'Active namespaces created by kpm:\n - run-7\n - run-8'],
  ])('%j', (names, text) => {
    expect(managedSessionsText(names)).toBe(text);
  });

  it('logs the list, and a failed list as a warning', async () => {
    const logger = { log: jest.fn(), warn: jest.fn() };
    await logManagedSessions({ listOurs: () => Promise.resolve(['run-7']) }, logger);
    expect(logger.log).toHaveBeenCalledWith(
      expect.objectContaining({
        event: 'sessions.managed',
        sessions: ['run-7'],
        drunc: 'Active namespaces created by kpm:\n - run-7',
      }),
    );
    await logManagedSessions({ listOurs: () => Promise.reject(new Error('403')) }, logger);
    expect(logger.warn).toHaveBeenCalledWith(
      expect.objectContaining({ event: 'sessions.list_failed', error: '403' }),
    );
  });
});
