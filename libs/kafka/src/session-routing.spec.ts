import { crc32 } from 'node:zlib';
import type { InboundRecord } from './inbound-record';
import {
  commandRoute,
  FORWARDED_FROM_HEADER,
  forwardedCommand,
  sessionPartition,
} from './session-routing';

/** kpm's default partition count (`kafka.partitions`). */
const PARTITIONS = 6;

/** librdkafka's default partitioner (`consistent_random`) for a non-empty key. */
const crc32Partition = (key: string, partitions: number) => crc32(key) % partitions;

describe('sessionPartition (murmur2, as Kafka’s Java client)', () => {
  // Hashes from librdkafka's src/rdmurmur2.c unit test, labelled there `java_murmur2_results`.
  it.each([
    ['kafka', 0xd067cf64],
    ['giberish123456789', 0x8f552b0c],
    ['1234', 0x9fc97b14],
    ['234', 0xe7c009ca],
    ['34', 0x873930da],
    ['4', 0x5a4b5ca1],
    ['PreAmbleWillBeRemoved,ThePrePartThatIs', 0x78424f1c],
    ['', 0x106e08d9],
  ])('%j hashes like the Java client', (key, javaHash) => {
    for (const partitions of [1, 3, 6, 7, 64]) {
      expect(sessionPartition(key, partitions)).toBe((javaHash & 0x7fffffff) % partitions);
    }
  });

  it('refuses a partition count below one', () => {
    expect(() => sessionPartition('a', 0)).toThrow('a topic has at least one partition, not 0');
  });
});

describe('murmur2 against CRC32 on the real partition count', () => {
  it('CRC32 is the standard one', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
  });

  // Session names a DAQ uses: the two partitioners disagree on most (not on '*' here).
  it.each([
    ['session-a', 2, 4],
    ['session-b', 5, 0],
    ['run-000123', 0, 4],
    ['np04-daq', 2, 3],
    ['*', 5, 5],
  ])('%s: murmur2 → %i, CRC32 → %i', (session, murmur2, crc) => {
    expect(sessionPartition(session, PARTITIONS)).toBe(murmur2);
    expect(crc32Partition(session, PARTITIONS)).toBe(crc);
  });
});

function record(partial: Partial<InboundRecord>): InboundRecord {
  return {
    topic: 'kpm.commands',
    partition: 0,
    offset: '17',
    key: null,
    value: null,
    headers: {},
    timestamp: '0',
    ...partial,
  };
}

describe('commandRoute', () => {
  const home = sessionPartition('session-a', PARTITIONS);
  const elsewhere = (home + 1) % PARTITIONS;
  const structured = Buffer.from(JSON.stringify({ subject: 'session-a' }));

  it.each<[string, Partial<InboundRecord>, ReturnType<typeof commandRoute>]>([
    ['keyed, on its partition', { key: 'session-a', partition: home }, { routed: true }],
    [
      'keyed, elsewhere',
      { key: 'session-a', partition: elsewhere },
      {
        routed: false,
        partition: home,
        key: 'session-a',
        reason: `session key "session-a" belongs on partition ${home}, not ${elsewhere}`,
      },
    ],
    [
      'keyless, even with a subject elsewhere: acted on where it is (refused at key)',
      { value: structured, partition: elsewhere },
      { routed: true },
    ],
    [
      'keyless binary with ce_subject: acted on where it is',
      { headers: { ce_subject: 'session-a' }, partition: elsewhere },
      { routed: true },
    ],
    ['keyless and not JSON: acted on where it is', { value: Buffer.from('{') }, { routed: true }],
    ['keyless tombstone', { value: null, partition: elsewhere }, { routed: true }],
  ])('%s', (_, partial, expected) => {
    expect(commandRoute(record(partial), PARTITIONS)).toEqual(expected);
  });

  it('forwards the record unchanged but for its partition and where it came from', () => {
    const original = record({
      key: 'session-a',
      partition: elsewhere,
      value: structured,
      headers: { 'content-type': 'application/cloudevents+json' },
    });
    const route = commandRoute(original, PARTITIONS);
    if (route.routed) throw new Error('expected a misrouted command');
    expect(forwardedCommand(original, route)).toEqual({
      topic: 'kpm.commands',
      partition: home,
      key: 'session-a',
      value: structured,
      headers: {
        'content-type': 'application/cloudevents+json',
        [FORWARDED_FROM_HEADER]: `${elsewhere}/17`,
      },
    });
  });
});
