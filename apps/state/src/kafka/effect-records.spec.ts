import { completionEventId, parseRecord } from '@kpm/contracts';
import type { Broadcaster } from '@kpm/service-kit';
import { instance, SESSION, uuidOf } from '../domain/__fixtures__/facts';
import { completionEffects } from '../domain/broadcasts';
import { EffectRecords, SHARD_HEADER } from './effect-records';

const broadcaster = {
  encode: () => ({ key: SESSION, value: Buffer.from('{}'), headers: {} }),
} as unknown as Broadcaster;

describe('EffectRecords', () => {
  const records = new EffectRecords('kpm', '/kpm/state/test', broadcaster);

  it('pins the completion to the input partition with its deterministic id, as a valid CloudEvent', () => {
    const effects = completionEffects({
      commandId: 'cmd-1',
      commandType: 'daq.kpm.command.ps.v1',
      session: SESSION,
      status: 'succeeded',
      processes: [instance('ru-01')],
      completedAt: Date.parse('2026-01-01T00:00:00Z'),
    });
    const [completion, broadcast] = records.encode(4, effects);
    expect(completion).toMatchObject({ topic: 'kpm.completions', partition: 4, key: SESSION });
    const parsed = parseRecord(completion.value as Buffer, { topic: 'kpm.completions' });
    expect(parsed.ok && parsed.event.id).toBe(completionEventId('cmd-1'));
    expect(broadcast).toMatchObject({ topic: 'kpm.broadcast', partition: 4 });
  });

  it('keys process rows by uuid with the shard header, and tombstones them', () => {
    const [row, tombstone] = records.encode(2, [
      { kind: 'process', instance: instance('ru-01') },
      { kind: 'tombstone', uuid: uuidOf('ru-02'), session: SESSION },
    ]);
    expect(row).toMatchObject({
      topic: 'kpm.processes',
      key: uuidOf('ru-01'),
      headers: { [SHARD_HEADER]: '2' },
    });
    expect(row.partition).toBeUndefined();
    expect(parseRecord(row.value as Buffer, { topic: 'kpm.processes' }).ok).toBe(true);
    expect(tombstone).toMatchObject({
      key: uuidOf('ru-02'),
      value: null,
      headers: { [SHARD_HEADER]: '2' },
    });
  });
});
