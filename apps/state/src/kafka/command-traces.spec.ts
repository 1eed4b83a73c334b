import type { CommandCompleted } from '@kpm/contracts';
import type { Effect } from '../domain/effects';
import { CommandTraces } from './command-traces';

const boot = '00-11111111111111111111111111111111-1111111111111111-01';
const kill = '00-22222222222222222222222222222222-2222222222222222-01';

const completion = (commandId: string): Effect => ({
  kind: 'completion',
  completion: { commandId } as CommandCompleted,
});
const broadcast = (commandId?: string): Effect => ({
  kind: 'broadcast',
  id: 'b',
  broadcastType: 'COMMAND_EXECUTION_SUCCESS',
  text: '',
  session: 's',
  data: commandId === undefined ? undefined : { commandId },
});
const row: Effect = { kind: 'tombstone', uuid: 'u', session: 's' };

describe('CommandTraces', () => {
  it('gives a completion caused by a boot-traced termination the kill’s own trace, once', () => {
    const traces = new CommandTraces();
    traces.remember(3, 'kill-1', kill);
    expect(traces.traceOf(3, broadcast('kill-1'), boot)).toBe(kill);
    expect(traces.traceOf(3, completion('kill-1'), boot)).toBe(kill);
    // Completed: forgotten, what follows carries its cause's trace.
    expect(traces.traceOf(3, completion('kill-1'), boot)).toBe(boot);
  });

  it.each<[string, Effect, string | undefined]>([
    ['a row', row, boot],
    ['a broadcast of no command', broadcast(), boot],
    ['a completion of a command without trace', completion('other'), boot],
  ])('gives %s the trace of its cause', (_, effect, expected) => {
    const traces = new CommandTraces();
    traces.remember(3, 'kill-1', kill);
    expect(traces.traceOf(3, effect, boot)).toBe(expected);
  });

  it('keeps partitions apart and forgets a released one', () => {
    const traces = new CommandTraces();
    traces.remember(3, 'kill-1', kill);
    traces.remember(4, 'kill-1', undefined);
    expect(traces.traceOf(4, completion('kill-1'), undefined)).toBeUndefined();
    traces.release(3);
    expect(traces.traceOf(3, completion('kill-1'), undefined)).toBeUndefined();
  });
});
