import { CommandType, type CommandStatus } from '@kpm/contracts';
import { completionEffects } from './broadcasts';
import type { BroadcastEffect } from './effects';

const broadcastsOf = (status: CommandStatus, errors = [{ path: 'session', message: 'is taken' }]) =>
  completionEffects({
    commandId: 'c-1',
    commandType: CommandType.boot,
    session: 'run-7',
    status,
    processes: [],
    errors,
    completedAt: Date.parse('2026-11-22T10:00:00Z'),
  }).filter((effect): effect is BroadcastEffect => effect.kind === 'broadcast');

describe('completion broadcasts', () => {
  it.each<[CommandStatus, string[]]>([
    ['succeeded', ['COMMAND_EXECUTION_SUCCESS']],
    ['failed', ['COMMAND_EXECUTION_FAILED', 'DRUNC_EXCEPTION_RAISED']],
    ['rejected', ['COMMAND_EXECUTION_FAILED', 'DRUNC_EXCEPTION_RAISED']],
    ['timed_out', ['COMMAND_EXECUTION_FAILED']],
  ])('%s: %j', (status, types) => {
    expect(broadcastsOf(status).map((b) => b.broadcastType)).toEqual(types);
  });

  it("words the exception as drunc's servicer does, naming the command and why", () => {
    const [, exception] = broadcastsOf('rejected');
    expect(exception).toMatchObject({
      session: 'run-7',
      text: "'DruncCommandException' exception thrown: boot c-1 rejected: 0 processes; session: is taken",
      data: { commandId: 'c-1', status: 'rejected' },
    });
    expect(exception.id).not.toBe(broadcastsOf('failed')[0].id);
  });
});
