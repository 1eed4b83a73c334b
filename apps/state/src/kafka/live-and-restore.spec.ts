/**
 * A record is judged the same live (ShardInput) and when a restore replays it (replayRecord):
 * what one path refuses the other refuses, or a restore would rebuild another state than the
 * live path had.
 */
import { encodeEvent, type KpmEvent } from '@kpm/contracts';
import { loadSettings } from '@kpm/config';
import type { InboundRecord, TransactionalRecord } from '@kpm/kafka';
import { bootAccepted, booted, terminated } from '../domain/__fixtures__/facts';
import { StateShard } from '../domain/state-shard';
import { parseInput, ShardInput } from './shard-input';
import { replayRecord } from './shard-restore';

const settings = loadSettings('state', {});
const maxBytes = settings.kafka.maxRecordBytes;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

function recordOf(
  topic: string,
  event: KpmEvent,
  change: Partial<InboundRecord> = {},
): InboundRecord {
  const encoded = encodeEvent(event);
  return {
    topic,
    partition: 0,
    offset: '7',
    key: encoded.key,
    value: encoded.value,
    headers: encoded.headers,
    timestamp: '0',
    ...change,
  };
}

/** The same event in binary mode: attributes in `ce_` headers, the value its data. */
function binary(topic: string, event: KpmEvent): InboundRecord {
  const { data, ...attributes } = event;
  const headers = Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [`ce_${name}`, String(value)]),
  );
  return recordOf(topic, event, {
    headers: { ...headers, 'content-type': 'application/json' },
    value: Buffer.from(JSON.stringify(data)),
  });
}

/** Everything the shard remembers, as its snapshot holds it. */
const memoryOf = (shard: StateShard) => JSON.stringify([...shard.snapshot()]);

/** A shard where p1 runs, so that a termination has a row to end. */
function shardWithP1(): StateShard {
  const shard = new StateShard(() => T0);
  for (const fact of [bootAccepted('c1', ['p1']), booted('c1', 'p1')]) shard.apply(fact, T0);
  return shard;
}

const BEFORE = memoryOf(shardWithP1());

/** Live: did the record change the shard, and what went to the dead letters. */
function live(record: InboundRecord) {
  const shard = shardWithP1();
  const out: TransactionalRecord[] = [];
  new ShardInput(settings, 'kpm-state').apply(shard, record, out);
  return { applied: memoryOf(shard) !== BEFORE, deadLettered: out.map((r) => r.topic) };
}

/** Replayed by a restore: did the record change the shard. */
function restored(record: InboundRecord) {
  const shard = shardWithP1();
  shard.beginRestore();
  replayRecord(settings, shard, record);
  return { applied: memoryOf(shard) !== BEFORE };
}

const facts = 'kpm.process-events';
const terminations = 'kpm.terminations';
const accepted = bootAccepted('c2', ['p2']);
const ended = terminated('p1', 1);

describe('a record is judged the same live and at restore', () => {
  it.each([
    { case: 'a fact', record: recordOf(facts, accepted), verdict: 'ok', applied: true },
    {
      case: 'a fact whose key is another session',
      record: recordOf(facts, accepted, { key: 'run-43' }),
      verdict: 'invalid',
      applied: false,
    },
    {
      case: 'a fact without a key',
      record: recordOf(facts, accepted, { key: null }),
      verdict: 'invalid',
      applied: false,
    },
    { case: 'a termination', record: recordOf(terminations, ended), verdict: 'ok', applied: true },
    {
      case: 'a termination whose key is another session',
      record: recordOf(terminations, ended, { key: 'run-43' }),
      verdict: 'invalid',
      applied: false,
    },
    {
      case: 'a malformed value',
      record: recordOf(facts, accepted, { value: Buffer.from('{"specversion":"1.0",') }),
      verdict: 'not-a-cloudevent',
      applied: false,
    },
    {
      case: 'a fact in binary mode',
      record: binary(facts, accepted),
      verdict: 'ok',
      applied: true,
    },
  ])('$case: $verdict', ({ record, verdict, applied }) => {
    const parsed = parseInput(record, maxBytes);
    expect(parsed.ok ? 'ok' : parsed.kind).toBe(verdict);
    if (!parsed.ok && parsed.kind === 'invalid')
      expect(parsed.errors.map((e) => e.path)).toEqual(['key']);

    const whenLive = live(record);
    expect(whenLive).toEqual({ applied, deadLettered: applied ? [] : ['kpm.dead-letters'] });
    expect(restored(record)).toEqual({ applied });
  });
});
