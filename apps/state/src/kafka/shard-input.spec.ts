import { CommandType, encodeEvent, EXAMPLE_EVENTS, type KpmEvent } from '@kpm/contracts';
import { loadSettings } from '@kpm/config';
import {
  FORWARDED_FROM_HEADER,
  sessionPartition,
  type InboundRecord,
  type TransactionalRecord,
} from '@kpm/kafka';
import { StateShard } from '../domain/state-shard';
import { ShardInput } from './shard-input';

const settings = loadSettings('state', {});
const PARTITIONS = settings.kafka.partitions;

function commandOn(partition: number, event: KpmEvent): InboundRecord {
  const encoded = encodeEvent(event);
  return {
    topic: 'kpm.commands',
    partition,
    offset: '41',
    key: encoded.key,
    value: encoded.value,
    headers: encoded.headers,
    timestamp: '0',
  };
}

describe('ShardInput: commands on another partition than their session’s', () => {
  const ps = EXAMPLE_EVENTS[CommandType.ps];
  const flush = EXAMPLE_EVENTS[CommandType.flush];

  it.each([
    ['ps', ps],
    ['flush', flush],
  ])('%s on its session’s partition is answered there, nothing forwarded', (_, event) => {
    const home = sessionPartition(event.subject!, PARTITIONS);
    const out: TransactionalRecord[] = [];
    const effects = new ShardInput(settings, 'kpm-state').apply(
      new StateShard(Date.now),
      commandOn(home, event),
      out,
    );
    expect(effects.map((e) => e.kind)).toContain('completion');
    expect(out).toEqual([]);
  });

  it.each([
    ['ps', ps],
    ['flush', flush],
  ])('%s elsewhere is forwarded unchanged to its session’s partition, not answered', (_, event) => {
    const home = sessionPartition(event.subject!, PARTITIONS);
    const arrived = (home + 1) % PARTITIONS;
    const record = commandOn(arrived, event);
    const out: TransactionalRecord[] = [];
    const effects = new ShardInput(settings, 'kpm-state').apply(
      new StateShard(Date.now),
      record,
      out,
    );
    expect(effects).toEqual([]);
    expect(out).toEqual([
      {
        topic: 'kpm.commands',
        partition: home,
        key: event.subject,
        value: record.value,
        headers: { ...record.headers, [FORWARDED_FROM_HEADER]: `${arrived}/41` },
      },
    ]);
  });
});
