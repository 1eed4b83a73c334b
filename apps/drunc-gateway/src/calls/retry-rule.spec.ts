import type { CommandCompleted } from '@kpm/contracts';
import { chooseCommand, MAX_ATTEMPTS, verdictOf, type CommandLookup } from './retry-rule';

const WINDOW = 300_000;
const NOW = 10 * WINDOW + 1_000; // early in window 10

const completed = (
  agoMs: number,
  status: CommandCompleted['status'] = 'succeeded',
): CommandLookup => ({
  state: 'completed',
  completion: {
    commandId: 'c',
    commandType: 'daq.kpm.command.boot.v1',
    session: 's',
    status,
    processes: [],
    completedAt: new Date(NOW - agoMs).toISOString(),
    durationMs: 1,
  },
});

const facts = (changed: boolean) => ({
  nowMs: NOW,
  windowMs: WINDOW,
  changedSince: () => Promise.resolve(changed),
});

describe('verdictOf', () => {
  it.each<[string, CommandLookup, boolean, string]>([
    ['a command never sent', { state: 'unknown' }, false, 'unused'],
    ['an open command (the call is in flight)', { state: 'open' }, true, 'retry'],
    ['completed just now, nothing changed', completed(1_000), false, 'retry'],
    ['completed just now, kpm moved on (the process died)', completed(1_000), true, 'settled'],
    ['completed longer ago than the window', completed(WINDOW + 1), false, 'settled'],
    ['a failure within the window', completed(5_000, 'failed'), false, 'retry'],
  ])('%s → %s', async (_name, lookup, changed, expected) => {
    expect(await verdictOf(lookup, facts(changed))).toBe(expected);
  });
});

describe('chooseCommand', () => {
  const idOf = (window: number, attempt: number) => `w${window}a${attempt}`;
  const lookupFrom = (known: Record<string, CommandLookup>) => (id: string) =>
    Promise.resolve(known[id] ?? { state: 'unknown' });

  it('a first call takes the current window’s first id', async () => {
    expect(await chooseCommand(idOf, lookupFrom({}), facts(false))).toEqual({
      kind: 'fresh',
      commandId: 'w10a0',
    });
  });

  it('a retry just across the window boundary finds the command of the previous window', async () => {
    const choice = await chooseCommand(idOf, lookupFrom({ w9a0: { state: 'open' } }), facts(false));
    expect(choice).toMatchObject({ kind: 'retry', commandId: 'w9a0' });
  });

  it('a repeat after the first attempt settled is a new attempt, and its retry finds it', async () => {
    const first = completed(2_000);
    const settled = {
      nowMs: NOW,
      windowMs: WINDOW,
      changedSince: (c: CommandCompleted) =>
        Promise.resolve(c === (first as { completion: CommandCompleted }).completion),
    };
    const known: Record<string, CommandLookup> = { w10a0: first };
    expect(await chooseCommand(idOf, lookupFrom(known), settled)).toEqual({
      kind: 'fresh',
      commandId: 'w10a1',
    });
    known.w10a1 = { state: 'open' };
    expect(await chooseCommand(idOf, lookupFrom(known), settled)).toMatchObject({
      kind: 'retry',
      commandId: 'w10a1',
    });
  });

  it('asks for both windows’ first ids side by side, each once', async () => {
    const asked: string[] = [];
    const answers: Array<() => void> = [];
    const slow = (id: string) => {
      asked.push(id);
      return new Promise<CommandLookup>((resolve) =>
        answers.push(() => resolve({ state: 'unknown' })),
      );
    };
    const choice = chooseCommand(idOf, slow, facts(false));
    await Promise.resolve();
    // Neither has answered yet, and both have been asked.
    expect([...asked].sort()).toEqual(['w10a0', 'w9a0']);
    answers.forEach((answer) => answer());
    expect(await choice).toEqual({ kind: 'fresh', commandId: 'w10a0' });
    expect(asked).toHaveLength(2);
  });

  it('a failed look-up ahead fails the call only if the walk reaches it', async () => {
    const failing = (id: string) =>
      id === 'w10a0'
        ? Promise.reject(new Error('state service down'))
        : Promise.resolve<CommandLookup>({ state: 'open' });
    // The previous window's open command answers the call: the failure is never read.
    expect(await chooseCommand(idOf, failing, facts(false))).toMatchObject({
      kind: 'retry',
      commandId: 'w9a0',
    });
    const unknownThenDown = (id: string) =>
      id === 'w10a0'
        ? Promise.reject(new Error('state service down'))
        : Promise.resolve<CommandLookup>({ state: 'unknown' });
    await expect(chooseCommand(idOf, unknownThenDown, facts(false))).rejects.toThrow(
      'state service down',
    );
  });

  it('gives up walking after MAX_ATTEMPTS settled attempts', async () => {
    const everything = () => Promise.resolve(completed(1_000));
    const choice = await chooseCommand(idOf, everything, facts(true));
    expect(choice).toEqual({ kind: 'fresh', commandId: `w10a${MAX_ATTEMPTS}` });
  });
});
