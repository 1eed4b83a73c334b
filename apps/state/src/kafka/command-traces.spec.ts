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
    const traces = new CommandTraces(100);
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
    const traces = new CommandTraces(100);
    traces.remember(3, 'kill-1', kill);
    expect(traces.traceOf(3, effect, boot)).toBe(expected);
  });

  it('keeps partitions apart and forgets a released one', () => {
    const traces = new CommandTraces(100);
    traces.remember(3, 'kill-1', kill);
    traces.remember(4, 'kill-1', undefined);
    expect(traces.traceOf(4, completion('kill-1'), undefined)).toBeUndefined();
    traces.release(3);
    expect(traces.traceOf(3, completion('kill-1'), undefined)).toBeUndefined();
  });

  it.each([
    { case: 'under the capacity', remembered: 2, kept: ['kill-0', 'kill-1'] },
    { case: 'at the capacity', remembered: 3, kept: ['kill-0', 'kill-1', 'kill-2'] },
    { case: 'over it: the oldest goes', remembered: 5, kept: ['kill-2', 'kill-3', 'kill-4'] },
  ])('keeps at most its capacity of traces per partition ($case)', ({ remembered, kept }) => {
    const traces = new CommandTraces(3);
    for (let i = 0; i < remembered; i++) traces.remember(3, `kill-${i}`, kill);
    const own = Array.from({ length: remembered }, (_, i) => `kill-${i}`).filter(
      (id) => traces.traceOf(3, broadcast(id), boot) === kill,
    );
    expect(own).toEqual(kept);
  });

  it('counts a re-remembered command as the most recent', () => {
    const traces = new CommandTraces(2);
    traces.remember(3, 'kill-0', kill);
    traces.remember(3, 'kill-1', kill);
    traces.remember(3, 'kill-0', kill);
    traces.remember(3, 'kill-2', kill);
    expect(traces.traceOf(3, broadcast('kill-0'), boot)).toBe(kill);
    expect(traces.traceOf(3, broadcast('kill-1'), boot)).toBe(boot);
  });
});
