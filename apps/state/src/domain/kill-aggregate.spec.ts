import { instance, uuidOf } from './__fixtures__/facts';
import { KillAggregate } from './kill-aggregate';

const restart = (...names: string[]) =>
  new KillAggregate(
    'restart-1',
    'restart',
    'run-42',
    0,
    { timeoutMs: 60_000 },
    names.map((name) => ({ uuid: uuidOf(name) })),
  );

describe('KillAggregate: a restart’s reboots', () => {
  it('keeps the first reboot of each targeted uuid, in target order, none of others', () => {
    const kill = restart('ru-01', 'ru-02');
    kill.rebooted({ instance: instance('ru-02', 2) });
    kill.rebooted({ instance: instance('ru-02', 3) });
    kill.rebooted({ instance: instance('ru-03', 2) });
    kill.rebooted({ instance: instance('ru-01', 2) });
    expect(kill.rebootOutcomes.map((r) => ('instance' in r ? r.instance.podUid : ''))).toEqual([
      instance('ru-01', 2).podUid,
      instance('ru-02', 2).podUid,
    ]);
  });

  it('keeps its reboots in a snapshot and reads back the one-process form of older ones', () => {
    const kill = restart('ru-01', 'ru-02');
    kill.rebooted({ instance: instance('ru-01', 2) });
    const saved = kill.progressState();
    expect(saved.reboots).toHaveLength(1);
    const again = restart('ru-01', 'ru-02');
    again.resumeProgress(saved);
    expect(again.rebootOutcomes).toEqual(kill.rebootOutcomes);
    const older = restart('ru-01');
    older.resumeProgress({
      due: 60_000,
      progressAt: 0,
      reboot: { instance: instance('ru-01', 2) },
    });
    expect(older.rebootOutcomes).toHaveLength(1);
  });
});
