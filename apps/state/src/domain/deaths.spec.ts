import type { KpmEvent, ProcessTerminated } from '@kpm/contracts';
import { bootAccepted, booted, killAccepted, terminated, timeOf } from './__fixtures__/facts';
import type { Effect } from './effects';
import { StateShard } from './state-shard';

const deaths = (effects: Effect[]) =>
  effects.flatMap((e) => (e.kind === 'death' ? [e.termination.name] : []));

function deleted(event: KpmEvent): KpmEvent {
  const data = event.data as ProcessTerminated;
  return { ...event, data: { ...data, deletionRequestedAt: data.observedAt } } as KpmEvent;
}

function run(...events: KpmEvent[]): Effect[] {
  const shard = new StateShard(() => Date.parse('2026-01-01T00:01:00Z'));
  return events.flatMap((event) => shard.apply(event, timeOf(event)));
}

const boot = [
  bootAccepted('boot-1', ['ru-01', 'ru-02']),
  booted('boot-1', 'ru-01'),
  booted('boot-1', 'ru-02'),
];

describe('deaths: the ends nobody asked for', () => {
  it.each<[string, KpmEvent[], string[]]>([
    ['a process exiting on its own', [...boot, terminated('ru-01', 3)], ['ru-01']],
    [
      '…once, when its termination comes twice',
      [...boot, terminated('ru-01', 3), terminated('ru-01', 3)],
      ['ru-01'],
    ],
    [
      'a kill of it: none',
      [...boot, killAccepted('kill-1', [['ru-01']]), terminated('ru-01', 143)],
      [],
    ],
    [
      'a restart of it: none',
      [...boot, killAccepted('r-1', [['ru-01']], { kind: 'restart' }), terminated('ru-01', 143)],
      [],
    ],
    [
      'a kill of another: it still died',
      [...boot, killAccepted('kill-1', [['ru-02']]), terminated('ru-01', 3)],
      ['ru-01'],
    ],
    [
      'its pod deleted before the kill.accepted arrived: none',
      [...boot, deleted(terminated('ru-01', 143)), killAccepted('kill-1', [['ru-01']])],
      [],
    ],
    ['a pod someone deleted: none', [...boot, deleted(terminated('ru-02', 137))], []],
    [
      'exit code 0 on its own is still an end nobody asked for',
      [...boot, terminated('ru-02', 0)],
      ['ru-02'],
    ],
  ])('%s', (_, events, expected) => {
    expect(deaths(run(...events))).toEqual(expected);
  });

  it('a replay while restoring publishes none (the first owner wrote it with its offsets)', () => {
    const shard = new StateShard(() => Date.parse('2026-01-01T00:01:00Z'));
    shard.beginRestore();
    const replayed = [...boot, terminated('ru-01', 3)].flatMap((e) => shard.apply(e, timeOf(e)));
    expect(deaths([...replayed, ...shard.endRestore()])).toEqual([]);
    expect(deaths(shard.apply(terminated('ru-01', 3), 0))).toEqual([]);
  });
});
