/**
 * What the shard remembers for late duplicates stays within its limits, and what a duplicate
 * gets once its command or pod was forgotten (docs/design.md §6.6).
 */
import { CommandType, type CommandCompleted, type KpmEvent } from '@kpm/contracts';
import {
  bootAccepted,
  booted,
  command,
  killAccepted,
  logsFetched,
  rejected,
  terminated,
  timeOf,
  uuidOf,
} from './__fixtures__/facts';
import type { Effect } from './effects';
import type { ShardLimits } from './shard-limits';
import { StateShard } from './state-shard';

const LIMITS: ShardLimits = { completedCommands: 2, heldCommands: 2, forgottenPods: 2 };

class Harness {
  readonly shard = new StateShard(
    () => Date.parse('2026-01-01T00:00:30.000Z'),
    undefined,
    [],
    LIMITS,
  );
  readonly effects: Effect[] = [];

  feed(...events: KpmEvent[]): this {
    for (const event of events) this.effects.push(...this.shard.apply(event, timeOf(event)));
    return this;
  }

  completions(commandId: string): CommandCompleted[] {
    return this.effects.flatMap((e) =>
      e.kind === 'completion' && e.completion.commandId === commandId ? [e.completion] : [],
    );
  }
}

/** Two other commands completed: the first one's id is no longer kept. */
const twoOthers = [command(CommandType.ps, 'ps-a', {}), command(CommandType.ps, 'ps-b', {})];

describe('StateShard: a late duplicate of a completed command', () => {
  it.each([
    {
      case: 'logs.fetched',
      first: [logsFetched('logs-1', 'ru-01')],
      again: [logsFetched('logs-1', 'ru-01')],
      evicted: 2,
    },
    {
      case: 'command.rejected',
      first: [rejected('logs-1')],
      again: [rejected('logs-1')],
      evicted: 2,
    },
    {
      case: 'ps with the same id',
      first: [command(CommandType.ps, 'logs-1', {})],
      again: [command(CommandType.ps, 'logs-1', {})],
      evicted: 2,
    },
    {
      // The pods are known, so the repeated boot facts settle nothing: no second completion.
      case: 'boot.accepted and process.booted',
      first: [bootAccepted('logs-1', ['ru-01']), booted('logs-1', 'ru-01')],
      again: [bootAccepted('logs-1', ['ru-01']), booted('logs-1', 'ru-01')],
      evicted: 1,
    },
    {
      // The target's end is known, so the kill settles at once, a second time.
      case: 'kill.accepted',
      first: [
        bootAccepted('b', ['ru-01']),
        booted('b', 'ru-01'),
        killAccepted('logs-1', [['ru-01']]),
        terminated('ru-01', 143),
      ],
      again: [killAccepted('logs-1', [['ru-01']])],
      evicted: 2,
    },
  ])(
    '$case: nothing while the id is kept, $evicted completion(s) in all once evicted',
    ({ first, again, evicted }) => {
      const kept = new Harness().feed(...first, twoOthers[0], ...again);
      expect(kept.completions('logs-1')).toHaveLength(1);
      const forgotten = new Harness().feed(...first, ...twoOthers, ...again);
      expect(forgotten.completions('logs-1')).toHaveLength(evicted);
    },
  );

  it('never keeps more completed ids than its limit', () => {
    const h = new Harness();
    for (let i = 0; i < 10; i++) h.feed(command(CommandType.ps, `ps-${i}`, {}));
    expect(h.shard.remembered().completedCommands).toBe(LIMITS.completedCommands);
  });

  it('keeps every completed id during a restore, so no replayed fact completes twice', () => {
    const h = new Harness();
    h.shard.beginRestore();
    for (const id of ['logs-1', 'ps-a', 'ps-b', 'ps-c']) h.shard.markCompleted(id);
    h.feed(logsFetched('logs-1', 'ru-01'));
    h.effects.push(...h.shard.endRestore());
    expect(h.completions('logs-1')).toEqual([]);
    expect(h.shard.remembered().completedCommands).toBe(LIMITS.completedCommands);
  });
});

describe('StateShard: boot facts held before their acceptance', () => {
  it('holds the facts of at most its limit of commands, dropping the oldest', () => {
    const h = new Harness().feed(
      ...['boot-1', 'boot-2', 'boot-3'].map((id, i) => booted(id, `ru-0${i + 1}`)),
    );
    expect(h.shard.remembered().heldCommands).toBe(LIMITS.heldCommands);
    h.feed(bootAccepted('boot-3', ['ru-03']), bootAccepted('boot-1', ['ru-01']));
    expect(h.completions('boot-3')).toMatchObject([{ status: 'succeeded' }]);
    // boot-1's fact was dropped: its late acceptance waits (its fact does not come again).
    expect(h.completions('boot-1')).toEqual([]);
    expect(h.shard.openCommand('boot-1')?.pending).toEqual([uuidOf('ru-01')]);
  });
});

describe('StateShard: pods of flushed processes', () => {
  const lived = (name: string) => [
    bootAccepted(`boot-${name}`, [name]),
    booted(`boot-${name}`, name),
    terminated(name, 0),
  ];
  const flush = (id: string) => command(CommandType.flush, id, {});

  it('forgets a flushed process’s pods, and a late fact about one does not bring it back', () => {
    const h = new Harness().feed(...lived('ru-01'), ...lived('ru-02'));
    expect(h.shard.remembered().pods).toBe(2);
    h.feed(flush('flush-1'));
    expect(h.shard.remembered().pods).toBe(0);
    h.feed(terminated('ru-01', 0), booted('boot-ru-01', 'ru-01'));
    expect(h.shard.table.size).toBe(0);
  });

  it('brings back as DEAD a process whose pod was forgotten past the limit', () => {
    const h = new Harness().feed(...lived('ru-01'), flush('flush-1'));
    for (const name of ['ru-02', 'ru-03']) h.feed(...lived(name), flush(`flush-${name}`));
    h.feed(terminated('ru-01', 0));
    expect(h.shard.table.get(uuidOf('ru-01'))).toMatchObject({ statusCode: 'DEAD' });
  });

  it('forgets after a restore the pods of processes the restored table no longer has', () => {
    const history = [...lived('ru-01'), ...lived('ru-02')];
    const before = new Harness().feed(...history, flush('flush-1'), ...lived('ru-03'));
    const after = new Harness();
    after.shard.beginRestore();
    for (const row of before.shard.table.all()) after.shard.table.load(row);
    after.feed(...history, ...lived('ru-03'));
    expect(after.shard.remembered().pods).toBe(3);
    after.shard.endRestore();
    expect(after.shard.remembered().pods).toBe(1);
    after.feed(terminated('ru-01', 0));
    expect(after.shard.table.size).toBe(1);
  });
});
