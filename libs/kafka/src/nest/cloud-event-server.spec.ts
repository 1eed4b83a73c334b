import { CommandType, encodeEvent, EXAMPLE_EVENTS } from '@kpm/contracts';
import { throwError, of } from 'rxjs';
import type { DeadLetterSink } from '../dead-letter-sink';
import type { InboundRecord } from '../inbound-record';
import { fakeBatch, FakeKafka, message } from '../__fixtures__/fake-kafka';
import { CloudEventServer, INVALID_EVENT, type InvalidEvent } from './cloud-event-server';
import type { KafkaEventContext } from './kafka-event-context';
import { eventually } from '@kpm/common';

const TOPIC = 'kpm.commands';
const ps = EXAMPLE_EVENTS[CommandType.ps];
const valid = encodeEvent(ps).value;
const unknownType = Buffer.from(JSON.stringify({ ...ps, type: 'daq.kpm.nonsense.v1' }));
const notJson = Buffer.from('{ not json');

type Handler = (data: unknown, context: KafkaEventContext) => unknown;

async function server(
  handlers: Record<string, Handler>,
  options: { consumers?: number; skip?: (record: InboundRecord) => string | undefined } = {},
) {
  const kafka = new FakeKafka();
  const letters: Array<{ offset: string; reason: string; paths: string[] }> = [];
  const deadLetters: DeadLetterSink = {
    publish: (record, reason, errors = []) => {
      letters.push({ offset: record.offset, reason, paths: errors.map((e) => e.path ?? '') });
      return Promise.resolve();
    },
  };
  let ready = 0;
  const instance = new CloudEventServer({
    kafka: kafka.asClient(),
    groupId: 'kpm-boot-worker',
    topics: [TOPIC],
    deadLetters,
    maxRecordBytes: 1024 * 1024,
    runner: { maxAttempts: 2, backoff: { initialMs: 1, maxMs: 1 } },
    onReady: () => ready++,
    consumers: options.consumers,
    skip: options.skip,
  });
  for (const [pattern, handler] of Object.entries(handlers)) {
    instance.addHandler(
      pattern,
      (data: unknown, ctx?: unknown) => Promise.resolve(handler(data, ctx as KafkaEventContext)),
      true,
    );
  }
  await new Promise<void>((resolve, reject) =>
    instance.listen((error) => (error instanceof Error ? reject(error) : resolve())),
  );
  const deliver = async (values: Buffer[]) => {
    const batch = fakeBatch(
      TOPIC,
      3,
      values.map((v, i) => message(i, v)),
    );
    const consumer = kafka.consumers[0];
    await consumer.eachBatch!(batch.payload);
    // Handlers run on after the fetch: the records are done once the commit passed the last.
    await eventually(() => consumer.commits.includes(String(values.length)), {
      what: 'the batch committed',
      everyMs: 1,
    });
    return batch.resolved;
  };
  return { kafka, letters, deliver, ready: () => ready };
}

describe('CloudEventServer', () => {
  it('hands a valid event to the handler of its type, with the record in the context', async () => {
    const seen: string[] = [];
    const { deliver, letters } = await server({
      [ps.type]: (event, ctx) => {
        seen.push(
          `${(event as { type: string }).type} @${ctx.record.partition}/${ctx.record.offset}`,
        );
        return Promise.resolve();
      },
    });
    expect(await deliver([valid])).toEqual(['0']);
    expect(seen).toEqual([`${ps.type} @3/0`]);
    expect(letters).toEqual([]);
  });

  it.each([
    {
      rule: 'a type nobody handles is acknowledged and skipped',
      handlers: {},
      values: [valid, valid],
      letters: [],
    },
    {
      rule: 'bytes that are no CloudEvent are dead-lettered with the reason; the next record goes through',
      handlers: { [ps.type]: () => of(undefined) },
      values: [notJson, valid],
      letters: [
        { offset: '0', reason: expect.stringContaining('not UTF-8 JSON') as string, paths: [] },
      ],
    },
    {
      rule: 'an invalid event with no INVALID_EVENT handler is dead-lettered with its field errors',
      handlers: { [ps.type]: () => of(undefined) },
      values: [unknownType, valid],
      letters: [{ offset: '0', reason: 'invalid CloudEvent', paths: ['type'] }],
    },
    {
      rule: 'a handler that keeps failing (a Nest observable error) is retried, then dead-lettered',
      handlers: { [ps.type]: () => throwError(() => new Error('kube down')) },
      values: [valid],
      letters: [{ offset: '0', reason: 'handler failed after 2 attempts: kube down', paths: [] }],
    },
  ])('$rule', async ({ handlers, values, letters: expected }) => {
    const { deliver, letters } = await server(handlers as Record<string, Handler>);
    expect(await deliver(values)).toEqual(values.map((_, i) => String(i)));
    expect(letters).toEqual(expected);
  });

  it('hands an invalid event to the INVALID_EVENT handler (which rejects it) instead', async () => {
    const invalid: InvalidEvent[] = [];
    const { deliver, letters } = await server({
      [INVALID_EVENT]: (data) => {
        invalid.push(data as InvalidEvent);
        return Promise.resolve();
      },
    });
    expect(await deliver([unknownType])).toEqual(['0']);
    expect(letters).toEqual([]);
    expect(invalid).toHaveLength(1);
    expect(invalid[0].envelope).toMatchObject({ id: ps.id, type: 'daq.kpm.nonsense.v1' });
    expect(invalid[0].errors.map((e) => e.path)).toEqual(['type']);
    expect(invalid[0].record.offset).toBe('0');
  });

  it('runs one consumer per requested slot in the same group, and is ready on joining', async () => {
    const { kafka, ready } = await server({}, { consumers: 3 });
    expect(kafka.consumers.map((c) => c.options.groupId)).toEqual(Array(3).fill('kpm-boot-worker'));
    kafka.consumers[1].emit(kafka.consumers[1].events.GROUP_JOIN, { memberAssignment: {} });
    expect(ready()).toBe(1);
  });

  it('commits past a record it is told to skip, unhandled, even one that is no CloudEvent', async () => {
    const seen: string[] = [];
    const { deliver, letters } = await server(
      { [ps.type]: (_, ctx) => Promise.resolve(seen.push(ctx.record.offset)) },
      { skip: (record) => (record.offset === '2' ? undefined : 'misrouted') },
    );
    expect(await deliver([valid, notJson, valid])).toEqual(['0', '1', '2']);
    expect(seen).toEqual(['2']);
    expect(letters).toEqual([]);
  });
});
