import { CommandType, TerminationType, type KpmEvent } from '@kpm/contracts';
import {
  bootAccepted,
  booted,
  bootFailed,
  command,
  killAccepted,
  logsFetched,
  rejected,
  terminated,
  timeOf,
} from './__fixtures__/facts';
import type { Effect } from './effects';
import { SLICE, type SnapshotEntry } from './shard-snapshot';
import { StateShard } from './state-shard';

const T0 = Date.parse('2026-01-01T00:00:30.000Z');
const NAMES = Array.from({ length: 6 }, (_, i) => `ru-0${i}`);

/** A shard fed like the Kafka adapter feeds it, with a clock the test moves. */
class Fed {
  now = T0;
  readonly shard = new StateShard(() => this.now, undefined, ['daq'], {
    completedCommands: 100,
    heldCommands: 10,
    forgottenPods: 100,
  });
  readonly effects: Effect[] = [];

  step(step: Step): Effect[] {
    const out = typeof step === 'number' ? this.tick(step) : this.shard.apply(step, timeOf(step));
    this.effects.push(...out);
    return out;
  }

  private tick(ms: number): Effect[] {
    this.now += ms;
    return this.shard.expire();
  }
}

/** A fact, or a number: that many ms pass and deadlines are checked. */
type Step = KpmEvent | number;

/** Entries as they travel: through JSON, so a snapshot holds plain data only. */
function written(shard: StateShard): SnapshotEntry[] {
  return [...shard.snapshot()].map((e) => JSON.parse(JSON.stringify(e)) as SnapshotEntry);
}

const isTermination = (step: Step) =>
  typeof step !== 'number' && step.type === TerminationType.processTerminated;

/** A restore replays the facts read (kpm.process-events), then the terminations (shard-restore). */
const inRestoreOrder = (steps: Step[]) => [
  ...steps.filter((s) => typeof s !== 'number' && !isTermination(s)),
  ...steps.filter(isTermination),
];

/**
 * A new shard restored from `entries`, then from what was published after them, then `tail` in
 * the order a restore replays it.
 */
function restored(entries: SnapshotEntry[], publishedAfter: Effect[], tail: Step[], now: number) {
  const fed = new Fed();
  fed.now = now;
  fed.shard.beginRestore();
  const loader = fed.shard.snapshotLoader();
  for (const entry of entries) loader.take(entry);
  loader.finish();
  for (const e of publishedAfter) {
    if (e.kind === 'completion') fed.shard.markCompleted(e.completion.commandId);
    if (e.kind === 'process') fed.shard.table.load(e.instance);
    if (e.kind === 'tombstone') fed.shard.table.forget(e.uuid);
  }
  for (const step of inRestoreOrder(tail)) fed.step(step);
  fed.effects.push(...fed.shard.endRestore());
  return fed;
}

const isFlush = (step: Step) => typeof step !== 'number' && step.type === CommandType.flush;

/** A seeded history of boots, kills, restarts, duplicates, failures, flushes and ticks. */
function history(seed: number): Step[] {
  let state = seed;
  const random = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  const pick = () => NAMES[random(NAMES.length)];
  const steps: Step[] = [];
  for (let i = 0; i < 60; i++) {
    const c = `cmd-${i}`;
    const names = NAMES.filter(() => random(2) === 0);
    const at = T0 + i * 1000;
    const choices: Step[][] = [
      [bootAccepted(c, names), ...names.map((n) => booted(c, n, 1 + random(2)))],
      [booted(c, pick()), bootAccepted(c, [pick()])],
      [bootAccepted(c, [pick()]), bootFailed(c, pick())],
      [killAccepted(c, [names], { at, timeoutSeconds: 5 + random(20), progressTimeoutSeconds: 3 })],
      [killAccepted(c, [[pick()]], { kind: 'restart', at }), booted(c, pick(), 2)],
      [
        killAccepted(c, [[NAMES[0], pick()]], { kind: 'restart', at }),
        booted(c, NAMES[0], 2),
        terminated(pick(), 143, 1),
        booted(c, pick(), 2),
      ],
      [terminated(pick(), random(2) ? 143 : 0, 1 + random(2))],
      [command(CommandType.flush, c, { names: [pick()] })],
      [rejected(c), logsFetched(`logs-${i}`, pick())],
      [1000 + random(8000)],
    ];
    const chosen = choices[random(choices.length)];
    steps.push(...chosen);
    if (random(5) === 0) steps.push(chosen[0]); // a duplicate
  }
  return steps;
}

describe('shard snapshot', () => {
  const seeds = Array.from({ length: 40 }, (_, i) => i + 1);

  it.each(seeds)('restores to a shard that goes on as the original (seed %i)', (seed) => {
    const steps = history(seed);
    const cut = Math.floor(steps.length / 3);
    const original = new Fed();
    steps.slice(0, cut).forEach((s) => original.step(s));
    const entries = written(original.shard);

    const copy = restored(entries, [], [], original.now);
    expect(copy.effects).toEqual(original.shard.expire()); // what fell due, as the original
    expect(written(copy.shard)).toEqual(written(original.shard));
    for (const step of steps.slice(cut)) expect(copy.step(step)).toEqual(original.step(step));
    expect(written(copy.shard)).toEqual(written(original.shard));
  });

  it.each(seeds)(
    'with the tail replayed, goes on as the crashed owner and publishes nothing again (seed %i)',
    (seed) => {
      // A flush in the tail reaches a restore only as kpm.processes' tombstones (flushes are not
      // replayed, as in a restore without snapshot): its pods are forgotten when the restore
      // ends, not at the flush's place, so the tail here has none.
      const all = history(seed);
      const cut = Math.floor(all.length / 3);
      const steps = [...all.slice(0, cut), ...all.slice(cut).filter((s) => !isFlush(s))];
      const crash = Math.floor((2 * steps.length) / 3);
      const original = new Fed();
      steps.slice(0, cut).forEach((s) => original.step(s));
      const entries = written(original.shard);
      const afterSnapshot = steps.slice(cut, crash).flatMap((s) => original.step(s));

      const copy = restored(entries, afterSnapshot, steps.slice(cut, crash), original.now);
      const due = copy.effects.filter((e) => e.kind === 'completion');
      expect(due).toEqual(original.shard.expire().filter((e) => e.kind === 'completion'));
      const completions = (effects: Effect[]) => effects.filter((e) => e.kind === 'completion');
      for (const step of steps.slice(crash))
        expect(completions(copy.step(step))).toEqual(completions(original.step(step)));
      expect(copy.shard.openCommands()).toEqual(original.shard.openCommands());
    },
  );

  describe('an end recorded before a flush (issue #30)', () => {
    const flushed = [
      bootAccepted('boot-1', ['ru-01', 'ru-02']),
      booted('boot-1', 'ru-01'),
      booted('boot-1', 'ru-02'),
      terminated('ru-01', -1, 1, undefined, 'ErrImagePull'),
      command(CommandType.flush, 'flush-1', { names: ['ru-01'] }),
    ];
    const terminate = killAccepted('term-1', [['ru-01', 'ru-02']], {
      kind: 'terminate',
      at: T0,
      pods: { 'ru-01': 1, 'ru-02': 1 },
    });

    it('keeps the flushed pods: a terminate after the restore does not wait for them', () => {
      const original = new Fed();
      flushed.forEach((s) => original.step(s));
      const copy = restored(written(original.shard), [], [], original.now);
      for (const step of [terminate, terminated('ru-02', 143)])
        expect(copy.step(step)).toEqual(original.step(step));
      const done = copy.effects.filter((e) => e.kind === 'completion');
      expect(done).toMatchObject([{ completion: { commandId: 'term-1', status: 'succeeded' } }]);
    });

    it('keeps a target that ended before the flush as ended, and completes it once', () => {
      const original = new Fed();
      [...flushed, terminate].forEach((s) => original.step(s));
      const copy = restored(written(original.shard), [], [], original.now);
      expect(copy.shard.openCommands()).toEqual(original.shard.openCommands());
      expect(copy.shard.openCommand('term-1')!.pending).toHaveLength(1);
      const last = terminated('ru-02', 143);
      expect(copy.step(last)).toEqual(original.step(last));
      expect(copy.step(60_000)).toEqual([]);
      const done = copy.effects.filter((e) => e.kind === 'completion');
      expect(done).toMatchObject([{ completion: { commandId: 'term-1', status: 'succeeded' } }]);
    });
  });

  it('cuts long lists into slices, so no entry grows with the shard', () => {
    const fed = new Fed();
    const names = Array.from({ length: SLICE * 2 + 1 }, (_, i) => `p-${i}`);
    fed.step(bootAccepted('big', names));
    fed.step(booted('big', names[0]));
    const lists = written(fed.shard).filter((e) => e[0] === 'boot-processes');
    expect(lists.map((e) => (e[2] as unknown[]).length)).toEqual([SLICE, SLICE, 1]);
  });

  it('refuses an entry it does not know and a list before its command', () => {
    const loader = new Fed().shard.snapshotLoader();
    expect(() => loader.take(['bogus', []] as unknown as SnapshotEntry)).toThrow(
      'unknown snapshot entry "bogus"',
    );
    expect(() => loader.take(['kill-targets', 'nope', []])).toThrow(
      'snapshot lists command nope before its header',
    );
    expect(() => loader.take(['completed', [1]] as unknown as SnapshotEntry)).toThrow(
      'snapshot ids are not strings',
    );
  });
});
