import { ConsumerRunner, type RecordHandler } from './consumer-runner';
import type { DeadLetterSink } from './dead-letter-sink';
import type { InboundRecord } from './inbound-record';
import { PoisonRecordError } from './poison-record';
import { fakeBatch, FakeConsumer, message, until, type Step } from './__fixtures__/fake-kafka';

interface Letter {
  record: InboundRecord;
  reason: string;
  errors: ReadonlyArray<{ path?: string; message: string }>;
}

async function runner(handle: RecordHandler, maxAttempts = 3, log: Step[] = []) {
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

describe('ConsumerRunner', () => {
  it.each<{
    rule: string;
    script: Partial<Record<string, Outcome[]>>;
    steps: string[];
    letters: object[];
  }>([
    {
      rule: 'resolves each offset only after its handler finished',
      script: {},
      steps: ['handle 0 ok', 'resolve 0', 'handle 1 ok', 'resolve 1', 'handle 2 ok', 'resolve 2'],
      letters: [],
    },
    {
      rule: 'dead-letters a poison record with its reason and handles the next record',
      script: { '1': ['poison'] },
      steps: ['handle 0 ok', 'resolve 0', 'handle 1 poison', 'dead-letter 1', 'resolve 1'],
      letters: [{ offset: '1', reason: 'not a CloudEvent', errors: [{ message: 'x' }] }],
    },
    {
      rule: 'retries a failing handler until it succeeds',
      script: { '0': ['fail', 'fail', 'ok'] },
      steps: ['handle 0 fail', 'handle 0 fail', 'handle 0 ok', 'resolve 0', 'handle 1 ok'],
      letters: [],
    },
    {
      rule: 'dead-letters a record whose handler keeps failing, then moves on',
      script: { '0': ['fail', 'fail', 'fail'] },
      steps: ['handle 0 fail', 'handle 0 fail', 'handle 0 fail', 'dead-letter 0', 'resolve 0'],
      letters: [
        { offset: '0', reason: 'handler failed after 3 attempts: broker down', errors: [] },
      ],
    },
  ])('$rule', async ({ script, steps, letters: expected }) => {
    const log: Step[] = [];
    const { consumer, letters } = await runner(scripted(script, log), 3, log);
    const batch = fakeBatch('kpm.commands', 0, [message(0), message(1), message(2)], log);
    await consumer.eachBatch!(batch.payload);
    expect(log.join(' | ')).toContain(steps.join(' | '));
    expect(batch.resolved).toEqual(['0', '1', '2']);
    expect(letters.map(({ record, ...letter }) => ({ offset: record.offset, ...letter }))).toEqual(
      expected,
    );
  });

  it('dead-letters with the record as consumed: coordinates, key and raw bytes', async () => {
    const { consumer, letters } = await runner(() => {
      throw new PoisonRecordError('bad');
    });
    await consumer.eachBatch!(fakeBatch('kpm.commands', 4, [message(7, 'raw')]).payload);
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

  it('skips, logs and counts a record that cannot even be dead-lettered (never reads it again)', async () => {
    const consumer = new FakeConsumer({}, []);
    const failed: string[] = [];
    const errors: string[] = [];
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
    expect(batch.resolved).toEqual(['5', '6']);
    expect(failed).toEqual(['5', '6']);
    expect(errors[0]).toBe(
      'kpm.commands[2]@5: could not be dead-lettered (message larger than the max message size); skipped. It was refused because: not UTF-8 JSON',
    );
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
    const delivery = consumer.eachBatch!(fakeBatch('kpm.commands', 3, [message(9)], log).payload);
    await until(() => calls === 2, 'the retry started');
    expect(instance.health.report()).toEqual({
      ready: false,
      detail: 'kpm.commands[3] makes no progress: offset 9 failed 1 time: API server unreachable',
    });
    release();
    await delivery;
    expect(reports[reports.length - 1]).toEqual({ ready: true, detail: 'consuming' });
  });

  it('does not resolve a record while its handler is still running', async () => {
    let finish!: () => void;
    const { consumer } = await runner(() => new Promise<void>((resolve) => (finish = resolve)));
    const batch = fakeBatch('kpm.commands', 0, [message(0)]);
    const delivery = consumer.eachBatch!(batch.payload);
    await until(() => finish !== undefined, 'the handler started');
    expect(batch.resolved).toEqual([]);
    finish();
    await delivery;
    expect(batch.resolved).toEqual(['0']);
  });

  it('leaves a record unresolved when stopped between retries (it is delivered again)', async () => {
    const log: Step[] = [];
    const { consumer, instance } = await runner(scripted({ '0': ['fail', 'fail'] }, log), 5);
    const batch = fakeBatch('kpm.commands', 0, [message(0), message(1)], log);
    const delivery = consumer.eachBatch!(batch.payload);
    await instance.stop();
    await delivery;
    expect(batch.resolved).toEqual([]);
    expect(log).not.toContain('handle 1 ok');
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

  it('commits through the consumer (auto-commit of resolved offsets), never before resolving', async () => {
    const { consumer } = await runner(scripted({}, []));
    expect(consumer.runOptions).toMatchObject({ autoCommit: true, eachBatchAutoResolve: false });
  });
});
