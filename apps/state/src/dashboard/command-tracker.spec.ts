import { CommandTracker } from './command-tracker';

const start = (commandId: string) => ({
  commandId,
  commandType: 'daq.kpm.command.boot.v1',
  session: 'run-1',
  startedAt: '2026-01-01T00:00:00.000Z',
});

describe('CommandTracker', () => {
  it('lists a started command until its completion', () => {
    const tracker = new CommandTracker();
    expect(tracker.started(start('c1'))).toEqual(start('c1'));
    tracker.started(start('c2'));
    tracker.completed({ commandId: 'c1' });
    expect(tracker.list().map((c) => c.commandId)).toEqual(['c2']);
  });

  it('keeps a command closed when its completion came before its start', () => {
    const tracker = new CommandTracker();
    tracker.completed({ commandId: 'c1' });
    expect(tracker.started(start('c1'))).toBeUndefined();
    expect(tracker.list()).toEqual([]);
  });

  it('opens a command once however often its start is broadcast', () => {
    const tracker = new CommandTracker();
    tracker.started(start('c1'));
    expect(tracker.started(start('c1'))).toBeUndefined();
    expect(tracker.list()).toHaveLength(1);
  });

  it('forgets the oldest closed commands beyond its memory', () => {
    const tracker = new CommandTracker(2);
    for (const id of ['a', 'b', 'c']) tracker.completed({ commandId: id });
    expect(tracker.started(start('a'))).toBeDefined();
    expect(tracker.started(start('c'))).toBeUndefined();
  });
});
