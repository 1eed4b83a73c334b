import { CommandType } from '@kpm/contracts';
import { SESSION } from '../__fixtures__/facts';
import { abandonedCompletion, type AbandonedCommand } from './abandoned';

/** What the completion says: its type, status, process count and errors. */
type Expected = { commandType: string; status: string; processes: number; errors: string[] };

describe('when a command the boot-worker gave up on completes, on its dead letter', () => {
  it.each<[string, Omit<AbandonedCommand, 'commandId'>, Expected]>([
    [
      'a boot: failed, saying why',
      { commandType: CommandType.boot, reason: 'Kubernetes API unavailable after 8 attempts' },
      {
        commandType: CommandType.boot,
        status: 'failed',
        processes: 0,
        errors: ['the boot-worker gave up on it: Kubernetes API unavailable after 8 attempts'],
      },
    ],
    [
      'a terminate: failed the same way, whatever of it was under way',
      { commandType: CommandType.terminate, reason: 'namespace deletion failed' },
      {
        commandType: CommandType.terminate,
        status: 'failed',
        processes: 0,
        errors: ['the boot-worker gave up on it: namespace deletion failed'],
      },
    ],
    [
      'an empty reason: still one error',
      { commandType: CommandType.logs, reason: '' },
      {
        commandType: CommandType.logs,
        status: 'failed',
        processes: 0,
        errors: ['the boot-worker gave up on it: '],
      },
    ],
  ])('%s', (_, abandoned, expected) => {
    const report = abandonedCompletion({ commandId: 'cmd-1', ...abandoned }, SESSION, 7);
    expect({
      commandType: report.commandType,
      status: report.status,
      processes: report.processes.length,
      errors: (report.errors ?? []).map((e) => e.message),
    }).toEqual(expected);
    expect(report).toMatchObject({ commandId: 'cmd-1', session: SESSION, acceptedAt: 7 });
    expect(report.pending).toBeUndefined();
  });
});
