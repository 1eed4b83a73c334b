import type { KafkaMessage } from 'kafkajs';
import { ConsumerRunner, type RecordContext, type RecordHandler } from './consumer-runner';
import type { DeadLetterSink } from './dead-letter-sink';
import type { InboundRecord } from './inbound-record';
import { PoisonRecordError } from './poison-record';
import { fakeBatch, FakeConsumer, message, type Step } from './__fixtures__/fake-kafka';
import { eventually, type LogEvent } from '@kpm/common';

interface Letter {
  record: InboundRecord;
  reason: string;
  errors: ReadonlyArray<{ path?: string; message: string }>;
}

async function runner(handle: RecordHandler, maxAttempts = 3, log: Step[] = [], maxInFlight = 8) {
  const consumer = new FakeConsumer({}, log);
  const letters: Letter[] = [];
  const deadLetters: DeadLetterSink = {
    publish: (record, reason, errors = []) => {
      log.push(`dead-letter ${record.offset}`);
      letters.push({ record, reason, errors });
      return Promise.resolve();
    },
  };
  const instance = new ConsumerRunner({
    consumer: consumer.asConsumer(),
    topics: ['kpm.commands'],
    handle,
    deadLetters,
    maxAttempts,
    maxInFlight,
    backoff: { initialMs: 1, maxMs: 1 },
  });
  await instance.start();
  return { instance, consumer, log, letters };
}

/** A handler driven by a script per offset: 'ok', 'poison', or failures before success. */
type Outcome = 'ok' | 'poison' | 'fail';

function scripted(script: Partial<Record<string, Outcome[]>>, log: Step[]) {
  const calls = new Map<string, number>();
  const handler: RecordHandler = (record: InboundRecord) => {
    const n = calls.get(record.offset) ?? 0;
    calls.set(record.offset, n + 1);
    const outcome = script[record.offset]?.[n] ?? 'ok';
    log.push(`handle ${record.offset} ${outcome}`);
    if (outcome === 'poison') throw new PoisonRecordError('not a CloudEvent', [{ message: 'x' }]);
    if (outcome === 'fail') throw new Error('broker down');
    return Promise.resolve();
  };
  return handler;
}

/** A handler whose records finish when the test says so, recording starts and contexts. */
function gated() {
  const started: string[] = [];
  const contexts = new Map<string, RecordContext>();
  const gates = new Map<string, () => void>();
  const handle: RecordHandler = (record, context) => {
    started.push(record.offset);
    contexts.set(record.offset, context);
    return new Promise<void>((resolve, reject) => {
      gates.set(record.offset, resolve);
      // Like the boot-worker's handlers: give up when the consumer stops.
      context.signal.addEventListener('abort', () => reject(new Error('stopping')));
    });
  };
  const finish = async (offset: string) => {
    await eventually(() => gates.has(offset), { what: `record ${offset} started`, everyMs: 1 });
    gates.get(offset)!();
  };
  return { handle, started, contexts, finish };
}

/** Records at offsets 0.. of the sessions named, in order. */
const sessions = (...keys: string[]): KafkaMessage[] =>
  keys.map((key, offset) => message(offset, `v${offset}`, key));

describe('ConsumerRunner', () => {
  it.each<{
    rule: string;
    script: Partial<Record<string, Outcome[]>>;
    handled: string[];
    letters: object[];
  }>([
    {
      rule: 'handles the records of one session in order and commits past the last',
      script: {},
      handled: ['handle 0 ok', 'handle 1 ok', 'handle 2 ok'],
      letters: [],
    },
    {
      rule: 'dead-letters a poison record with its reason and handles the next record',
      script: { '1': ['poison'] },
      handled: ['handle 0 ok', 'handle 1 poison', 'dead-letter 1', 'handle 2 ok'],
      letters: [{ offset: '1', reason: 'not a CloudEvent', errors: [{ message: 'x' }] }],
    },
    {
      rule: 'retries a failing handler until it succeeds',
      script: { '0': ['fail', 'fail', 'ok'] },
      handled: ['handle 0 fail', 'handle 0 fail', 'handle 0 ok', 'handle 1 ok', 'handle 2 ok'],
      letters: [],
    },
    {
      rule: 'dead-letters a record whose handler keeps failing, then moves on',
      script: { '0': ['fail', 'fail', 'fail'] },
      handled: ['handle 0 fail', 'handle 0 fail', 'handle 0 fail', 'dead-letter 0', 'handle 1 ok'],
      letters: [
        { offset: '0', reason: 'handler failed after 3 attempts: broker down', errors: [] },
      ],
    },
  ])('$rule', async ({ script, handled, letters: expected }) => {
    const log: Step[] = [];
    const { consumer, letters } = await runner(scripted(script, log), 3, log);
    const batch = fakeBatch('kpm.commands', 0, [message(0), message(1), message(2)], log);
    await consumer.eachBatch!(batch.payload);
    await eventually(() => consumer.commits.includes('3'), {
      what: 'offset 3 committed',
      everyMs: 1,
    });
    const work = log.filter((step) => !step.startsWith('commit') && !step.startsWith('resolve'));
    expect(work.join(' | ')).toContain(handled.join(' | '));
    expect(batch.resolved).toEqual(['0', '1', '2']);
    expect(consumer.commits.map(Number)).toEqual([...consumer.commits.map(Number)].sort());
    expect(letters.map(({ record, ...letter }) => ({ offset: record.offset, ...letter }))).toEqual(
      expected,
    );
  });

  it('dead-letters with the record as consumed: coordinates, key and raw bytes', async () => {
    const { consumer, letters } = await runner(() => {
      throw new PoisonRecordError('bad');
    });
    await consumer.eachBatch!(fakeBatch('kpm.commands', 4, [message(7, 'raw')]).payload);
    await eventually(() => letters.length === 1, { what: 'the dead letter', everyMs: 1 });
    expect(letters).toEqual([
      {
        record: expect.objectContaining({ topic: 'kpm.commands', partition: 4, offset: '7' }),
        reason: 'bad',
        errors: [],
      },
    ]);
    expect(letters[0].record.key).toBe('session-a');
    expect(letters[0].record.value?.toString()).toBe('raw');
  });

  it('runs the sessions of a partition concurrently; the commit waits for the lowest unfinished', async () => {
    const { handle, started, finish } = gated();
    const { consumer } = await runner(handle);
    await consumer.eachBatch!(fakeBatch('kpm.commands', 0, sessions('a', 'b', 'c')).payload);
    await eventually(() => started.length === 3, {
      what: 'all three sessions started',
      everyMs: 1,
    });
    await finish('1');
    await finish('2');
    await eventually(() => started.length === 3, { everyMs: 1 });
    expect(consumer.commits).toEqual([]);
    await finish('0');
    await eventually(() => consumer.commits.length > 0, { what: 'a commit', everyMs: 1 });
    expect(consumer.commits).toEqual(['3']);
  });

  it('skips, logs and counts a record that cannot even be dead-lettered (never reads it again)', async () => {
    const consumer = new FakeConsumer({}, []);
    const failed: string[] = [];
    const errors: LogEvent[] = [];
    const instance = new ConsumerRunner({
      consumer: consumer.asConsumer(),
      topics: ['kpm.commands'],
      handle: () => Promise.reject(new PoisonRecordError('not UTF-8 JSON')),
      deadLetters: {
        publish: () => Promise.reject(new Error('message larger than the max message size')),
        failed: (record) => failed.push(record.offset),
      },
      logger: { warn: () => undefined, error: (m) => errors.push(m) },
    });
    await instance.start();
    const batch = fakeBatch('kpm.commands', 2, [message(5), message(6)]);
    await consumer.eachBatch!(batch.payload);
    await eventually(() => consumer.commits.includes('7'), {
      what: 'offset 7 committed',
      everyMs: 1,
    });
    expect(failed).toEqual(['5', '6']);
    expect(errors[0]).toEqual({
      message: 'record.skipped_undeadlettered',
      event: 'record.skipped_undeadlettered',
      topic: 'kpm.commands',
      partition: 2,
      offset: '5',
      error: 'message larger than the max message size',
      reason: 'not UTF-8 JSON',
    });
  });

  it.each<[string, (c: FakeConsumer) => void, boolean, string]>([
    ['in the group', (c) => c.emit('join', {}), true, 'consuming'],
    [
      'restarting after a crash',
      (c) => {
        c.emit('join', {});
        c.emit('crash', { error: new Error('boom'), restart: true });
      },
      false,
      'restarting after a crash: boom',
    ],
  ])('reports its health: %s', async (_, events, ready, detail) => {
    const consumer = new FakeConsumer({}, []);
    const reports: Array<{ ready: boolean; detail: string }> = [];
    const instance = new ConsumerRunner({
      consumer: consumer.asConsumer(),
      topics: ['kpm.commands'],
      handle: () => Promise.resolve(),
      deadLetters: { publish: () => Promise.resolve() },
      onHealth: (r) => reports.push(r),
    });
    await instance.start();
    events(consumer);
    expect(reports[reports.length - 1]).toEqual({ ready, detail });
  });

  it('is not ready while a partition is stuck on a failing record, and says which', async () => {
    const log: Step[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const reports: Array<{ ready: boolean; detail: string }> = [];
    const consumer = new FakeConsumer({}, log);
    const instance = new ConsumerRunner({
      consumer: consumer.asConsumer(),
      topics: ['kpm.commands'],
      handle: async () => {
        calls++;
        if (calls === 1) throw new Error('API server unreachable');
        await gate;
      },
      deadLetters: { publish: () => Promise.resolve() },
      backoff: { initialMs: 1, maxMs: 1 },
      onHealth: (r) => reports.push(r),
    });
    await instance.start();
    consumer.emit('join', {});
    await consumer.eachBatch!(fakeBatch('kpm.commands', 3, [message(9)], log).payload);
    await eventually(() => calls === 2, { what: 'the retry started', everyMs: 1 });
    expect(instance.health.report()).toEqual({
      ready: false,
      detail: 'kpm.commands[3] makes no progress: offset 9 failed 1 time: API server unreachable',
    });
    release();
    await eventually(() => consumer.commits.includes('10'), {
      what: 'offset 10 committed',
      everyMs: 1,
    });
    expect(reports[reports.length - 1]).toEqual({ ready: true, detail: 'consuming' });
  });

  it("keeps one session's records in order: the next starts when the previous finished", async () => {
    const { handle, started, finish } = gated();
    const { consumer } = await runner(handle);
    await consumer.eachBatch!(fakeBatch('kpm.commands', 0, sessions('a', 'b', 'a')).payload);
    await eventually(() => started.length === 2, { what: 'a and b started', everyMs: 1 });
    expect(started).toEqual(['0', '1']);
    await finish('1');
    await eventually(() => consumer.commits.length === 0 && started.length === 2, { everyMs: 1 });
    await finish('0');
    await eventually(() => started.length === 3, { what: "a's second record started", everyMs: 1 });
    expect(consumer.commits).toEqual(['2']);
    await finish('2');
    await eventually(() => consumer.commits.includes('3'), {
      what: 'offset 3 committed',
      everyMs: 1,
    });
  });

  it('fetches no further than maxInFlight records of a partition not yet finished', async () => {
    const { handle, started, finish } = gated();
    const { consumer } = await runner(handle, 3, [], 2);
    const batch = fakeBatch('kpm.commands', 0, sessions('a', 'b', 'c'));
    let returned = false;
    const delivery = consumer.eachBatch!(batch.payload).then(() => (returned = true));
    await eventually(() => started.length === 2, { what: 'two records started', everyMs: 1 });
    expect(batch.resolved).toEqual(['0', '1']);
    expect(returned).toBe(false);
    await finish('1');
    await delivery;
    expect(batch.resolved).toEqual(['0', '1', '2']);
    expect(started).toEqual(['0', '1', '2']);
  });

  it('does not handle a redelivered record again (a rebalance that kept the partition)', async () => {
    const { handle, started, finish } = gated();
    const { consumer } = await runner(handle);
    await consumer.eachBatch!(fakeBatch('kpm.commands', 0, sessions('a', 'b')).payload);
    await finish('1');
    consumer.emit('join', { memberId: 'm1', memberAssignment: { 'kpm.commands': [0] } });
    await consumer.eachBatch!(fakeBatch('kpm.commands', 0, sessions('a', 'b', 'c')).payload);
    await eventually(() => started.length === 3, { what: 'the new record started', everyMs: 1 });
    expect(started).toEqual(['0', '1', '2']);
  });

  it('keeps the work of a partition it still holds after rejoining under a new member id', async () => {
    const { handle, contexts, started, finish } = gated();
    const { consumer } = await runner(handle);
    consumer.emit('join', { memberId: 'm1', memberAssignment: { 'kpm.commands': [0] } });
    await consumer.eachBatch!(fakeBatch('kpm.commands', 0, sessions('a')).payload);
    await eventually(() => contexts.has('0'), { what: 'record 0 started', everyMs: 1 });
    // The coordinator failed over; the member joined again with a new id and the same partition.
    consumer.emit('join', { memberId: 'm2', memberAssignment: { 'kpm.commands': [0] } });
    expect(contexts.get('0')!.signal.aborted).toBe(false);
    await consumer.eachBatch!(fakeBatch('kpm.commands', 0, sessions('a', 'b')).payload);
    await finish('0');
    await eventually(() => started.length === 2, { what: 'the new record started', everyMs: 1 });
    expect(started).toEqual(['0', '1']);
  });

  it('stops the work of a partition this member lost, and commits nothing more for it', async () => {
    const { handle, contexts, finish } = gated();
    const { consumer } = await runner(handle);
    consumer.emit('join', { memberId: 'm1', memberAssignment: { 'kpm.commands': [0, 1] } });
    await consumer.eachBatch!(fakeBatch('kpm.commands', 0, sessions('a')).payload);
    await eventually(() => contexts.has('0'), { what: 'record 0 started', everyMs: 1 });
    consumer.emit('join', { memberId: 'm1', memberAssignment: { 'kpm.commands': [1] } });
    expect(contexts.get('0')!.signal.aborted).toBe(true);
    await finish('0');
    await new Promise((resolve) => setImmediate(resolve));
    expect(consumer.commits).toEqual([]);
  });

  it('leaves a record uncommitted when stopped between retries (it is delivered again)', async () => {
    const log: Step[] = [];
    const { consumer, instance } = await runner(scripted({ '0': ['fail', 'fail'] }, log), 5, log);
    const batch = fakeBatch('kpm.commands', 0, [message(0), message(1)], log);
    await consumer.eachBatch!(batch.payload);
    await eventually(() => log.includes('handle 0 fail'), {
      what: 'the first attempt',
      everyMs: 1,
    });
    await instance.stop();
    expect(consumer.commits).toEqual([]);
    expect(log).not.toContain('handle 1 ok');
    expect(log[log.length - 1]).toBe('consumer disconnect');
  });

  it('commits what finished before it leaves the group when stopped', async () => {
    const { handle, contexts, finish } = gated();
    const log: Step[] = [];
    const { consumer, instance } = await runner(handle, 3, log);
    await consumer.eachBatch!(fakeBatch('kpm.commands', 0, sessions('a', 'b')).payload);
    await finish('0');
    await eventually(() => contexts.has('1'), { everyMs: 1 });
    const stopped = instance.stop();
    expect(contexts.get('1')!.signal.aborted).toBe(true);
    await stopped;
    expect(consumer.commits).toEqual(['1']);
    expect(log.slice(-2)).toEqual(['commit 0@1', 'consumer disconnect']);
  });

  it('stops handling a batch that went stale (the partition moved in a rebalance)', async () => {
    const log: Step[] = [];
    const { consumer } = await runner(scripted({}, log));
    const batch = fakeBatch('kpm.commands', 0, [message(0), message(1)], log);
    batch.stale = true;
    await consumer.eachBatch!(batch.payload);
    expect(log).toEqual([]);
    expect(batch.resolved).toEqual([]);
  });

  it('gives handlers a heartbeat that never throws at them', async () => {
    const { handle, contexts } = gated();
    const { consumer } = await runner(handle);
    const batch = fakeBatch('kpm.commands', 0, sessions('a'));
    batch.payload.heartbeat = () => Promise.reject(new Error('rebalance in progress'));
    await consumer.eachBatch!(batch.payload);
    await eventually(() => contexts.has('0'), { everyMs: 1 });
    await expect(contexts.get('0')!.heartbeat()).resolves.toBeUndefined();
  });

  it('commits by the lanes, never by the fetch position (kafkajs auto-commit off)', async () => {
    const { consumer } = await runner(scripted({}, []));
    expect(consumer.runOptions).toMatchObject({ autoCommit: false, eachBatchAutoResolve: false });
  });
});
