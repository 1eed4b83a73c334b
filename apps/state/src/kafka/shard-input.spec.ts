import { CommandType, encodeEvent, EXAMPLE_EVENTS, type KpmEvent } from '@kpm/contracts';
import { loadSettings } from '@kpm/config';
import {
  deadLetterRecord,
  FORWARDED_FROM_HEADER,
  sessionPartition,
  type InboundRecord,
  type TransactionalRecord,
} from '@kpm/kafka';
import type { Effect } from '../domain/effects';
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
    const { effects } = new ShardInput(settings, 'kpm-state').apply(
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
    const { effects } = new ShardInput(settings, 'kpm-state').apply(
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

describe('ShardInput: dead letters of commands the boot-worker gave up on', () => {
  const boot = EXAMPLE_EVENTS[CommandType.boot];
  const home = sessionPartition(boot.subject!, PARTITIONS);
  const reason = 'handler failed after 8 attempts: connect ECONNREFUSED 127.0.0.1:6443';

  function letterOf(source: InboundRecord, why = reason): InboundRecord {
    const letter = deadLetterRecord(source, why, [], 'kpm-boot-worker');
    return {
      topic: 'kpm.dead-letters',
      partition: home,
      offset: '5',
      key: letter.key,
      value: Buffer.from(letter.value as Buffer),
      headers: letter.headers ?? {},
      timestamp: '0',
    };
  }

  const completions = (effects: Effect[]) =>
    effects.flatMap((e) => (e.kind === 'completion' ? [e.completion] : []));

  it('completes the command as failed, saying why, once', () => {
    const shard = new StateShard(Date.now);
    const input = new ShardInput(settings, 'kpm-state');
    const letter = letterOf(commandOn(home, boot));
    const out: TransactionalRecord[] = [];
    expect(completions(input.apply(shard, letter, out).effects)).toEqual([
      expect.objectContaining({
        commandId: boot.id,
        commandType: CommandType.boot,
        session: boot.subject,
        status: 'failed',
        processes: [],
        errors: [{ message: `the boot-worker gave up on it: ${reason}` }],
      }),
    ]);
    expect(input.apply(shard, letter, out).effects).toEqual([]);
    expect(out).toEqual([]);
  });

  const garbage: InboundRecord = { ...commandOn(home, boot), value: Buffer.from('{ nope') };
  const fact: InboundRecord = { ...commandOn(home, boot), topic: 'kpm.process-events' };
  it.each<[string, InboundRecord]>([
    ['a command that was no CloudEvent', letterOf(garbage, 'not UTF-8 JSON')],
    ['a fact state could not read', letterOf(fact, 'invalid CloudEvent')],
    [
      'a record on kpm.dead-letters that is no dead letter',
      { ...letterOf(garbage), value: Buffer.from('x') },
    ],
  ])('leaves %s to operators: no completion, not dead-lettered again', (_, letter) => {
    const out: TransactionalRecord[] = [];
    expect(
      new ShardInput(settings, 'kpm-state').apply(new StateShard(Date.now), letter, out),
    ).toEqual({ effects: [] });
    expect(out).toEqual([]);
  });
});

describe('ShardInput: the trace a record carries', () => {
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const ps = EXAMPLE_EVENTS[CommandType.ps];
  const home = sessionPartition(ps.subject!, PARTITIONS);

  it.each<[string, object, string | undefined]>([
    ['a command with a traceparent', { ...ps, traceparent }, traceparent],
    ['a command without', ps, undefined],
    ['a command with a malformed one', { ...ps, traceparent: 'x' }, undefined],
  ])('%s', (_, event, expected) => {
    const step = new ShardInput(settings, 'kpm-state').apply(
      new StateShard(Date.now),
      commandOn(home, event as KpmEvent),
      [],
    );
    expect(step.traceparent).toBe(expected);
    expect(step.effects.length).toBeGreaterThan(0);
  });
});
