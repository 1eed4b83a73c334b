import { CommandType, type CommandRejected } from '@kpm/contracts';
import { SESSION } from '../__fixtures__/facts';
import { rejectedCompletion } from './rejected';

type Refusal = Pick<CommandRejected, 'commandType' | 'errors'>;
/** What the completion says: its type, status, process count and `path: message` errors. */
type Expected = { commandType: string; status: string; processes: number; errors: string[] };

describe('when a command the boot-worker refused completes, on its command.rejected', () => {
  it.each<[string, Refusal, Expected]>([
    [
      'a boot with a bad name: rejected, the error at its path',
      {
        commandType: CommandType.boot,
        errors: [{ path: 'processes[0].name', message: 'must be a DNS-1123 label' }],
      },
      {
        commandType: CommandType.boot,
        status: 'rejected',
        processes: 0,
        errors: ['processes[0].name: must be a DNS-1123 label'],
      },
    ],
    [
      'several errors: each, in the order given',
      {
        commandType: CommandType.kill,
        errors: [
          { path: 'query', message: 'must select at least one process' },
          { path: 'timeoutSeconds', message: 'must be at most 3600' },
        ],
      },
      {
        commandType: CommandType.kill,
        status: 'rejected',
        processes: 0,
        errors: ['query: must select at least one process', 'timeoutSeconds: must be at most 3600'],
      },
    ],
    [
      'a type kpm does not know: rejected, the type as received',
      {
        commandType: 'daq.kpm.command.frobnicate.v1',
        errors: [{ path: 'type', message: 'unknown command type' }],
      },
      {
        commandType: 'daq.kpm.command.frobnicate.v1',
        status: 'rejected',
        processes: 0,
        errors: ['type: unknown command type'],
      },
    ],
  ])('%s', (_, refusal, expected) => {
    const report = rejectedCompletion({ commandId: 'cmd-1', ...refusal }, SESSION, 7);
    expect({
      commandType: report.commandType,
      status: report.status,
      processes: report.processes.length,
      errors: (report.errors ?? []).map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)),
    }).toEqual(expected);
    expect(report).toMatchObject({ commandId: 'cmd-1', session: SESSION, acceptedAt: 7 });
  });
});
