import type { InboundRecord } from './inbound-record';
import type {
  CommittedOffsets,
  PartitionStateHandler,
  TransactionalRecord,
} from './partition-state-handler';
import { PartitionReset } from './partition-reset';
import { TransactionalRunner } from './transactional-runner';
import { fakeBatch, FakeKafka, message, type Step } from './__fixtures__/fake-kafka';
import { eventually } from '@kpm/common';

const INPUT = 'kpm.in';
const OUTPUT = 'kpm.out';

/** Logs what the runner asks of the service's state; `failRestores` restores fail first. */
class FakeHandler implements PartitionStateHandler {
  failRestores = 0;
  firstRecords = 0;
  /** p's own work is due at this time (once), if set. */
  wakeAt?: number;

  constructor(private readonly log: Step[]) {}

  restore(partitions: readonly number[], committed: CommittedOffsets) {
    const from = committed.get(INPUT)?.get(partitions[0]) ?? '-';
    this.log.push(`restore [${partitions.join(', ')}] from ${from}`);
    if (this.failRestores-- > 0) return Promise.reject(new Error('history read timed out'));
    const first = Array.from({ length: this.firstRecords }, () => output('first'));
    return Promise.resolve(new Map(partitions.map((p) => [p, first])));
  }

  process(partition: number, records: readonly InboundRecord[]): TransactionalRecord[] {
    this.log.push(`process ${partition}: ${records.map((r) => r.offset).join(',')}`);
    return records.map((r) => output(String(r.value)));
  }

  release(partition: number): void {
    this.log.push(`release ${partition}`);
  }

  /** The partitions told their transaction committed, in order. */
  readonly commits: number[] = [];

  committed(partition: number): void {
    this.commits.push(partition);
  }

  nextWake(): number | undefined {
    return this.wakeAt;
  }

  wake(partition: number, positions: ReadonlyMap<string, bigint>): TransactionalRecord[] {
    this.wakeAt = undefined;
    this.log.push(`wake ${partition} at ${positions.get(INPUT) ?? 0n}`);
    return [output('timed out')];
  }
}

function output(value: string): TransactionalRecord {
  return { topic: OUTPUT, key: 'session-a', value };
}

async function ownerOf(
  assignment: number[],
  setup: (kafka: FakeKafka, handler: FakeHandler) => void = () => undefined,
) {
  const kafka = new FakeKafka();
  const handler = new FakeHandler(kafka.log);
  const readiness: string[] = [];
  setup(kafka, handler);
  const runner = new TransactionalRunner({
    kafka: kafka.asClient(),
    groupId: 'g',
    topics: [INPUT],
    handler,
    transactionalIdPrefix: 'g',
    restoreBackoff: { initialMs: 1, maxMs: 1 },
    onReadiness: (ready, detail) => readiness.push(`${ready ? 'ready' : 'not ready'}: ${detail}`),
  });
  await runner.start();
  const consumer = kafka.consumers[0];
  consumer.emit(consumer.events.GROUP_JOIN, { memberAssignment: { [INPUT]: assignment } });
  await eventually(() => assignment.every((p) => runner.owned().includes(p)), {
    what: 'restored',
    everyMs: 1,
  });
  const deliver = (partition: number, offsets: number[]) => {
    const batch = fakeBatch(
      INPUT,
      partition,
      offsets.map((o) => message(o)),
      kafka.log,
    );
    return { batch, done: consumer.eachBatch!(batch.payload) };
  };
  return { kafka, handler, runner, readiness, deliver, log: kafka.log };
}

describe('TransactionalRunner', () => {
  it('fences the previous owner before reading what it committed, then publishes the first records', async () => {
    const { log, readiness } = await ownerOf([0], (kafka, handler) => {
      kafka.committed.set(INPUT, new Map([[0, '5']]));
      handler.firstRecords = 1;
    });
    expect(log).toEqual([
      'g-0#0 connect',
      'g-0#0 abort',
      'fetch committed offsets',
      'restore [0] from 5',
      `g-0#0 sendBatch ${OUTPUT}×1`,
      'g-0#0 commit',
    ]);
    expect(readiness).toEqual([
      'not ready: restoring partitions [0]',
      'ready: owns partitions [0]',
    ]);
  });

  it.each([
    {
      rule: 'a batch, its outputs and the offset after it form one transaction',
      committed: '0',
      offsets: [0, 1, 2],
      steps: [
        'process 0: 0,1,2',
        `g-0#0 sendBatch ${OUTPUT}×3`,
        `g-0#0 sendOffsets ${INPUT}@3`,
        'g-0#0 commit',
        'resolve 2',
      ],
    },
    {
      rule: 'records before the committed offset were applied before the restore: skipped',
      committed: '2',
      offsets: [0, 1, 2, 3],
      steps: [
        'process 0: 2,3',
        `g-0#0 sendBatch ${OUTPUT}×2`,
        `g-0#0 sendOffsets ${INPUT}@4`,
        'g-0#0 commit',
        'resolve 3',
      ],
    },
    {
      rule: 'a batch wholly applied before only moves the consumer on, with no transaction',
      committed: '2',
      offsets: [0, 1],
      steps: ['resolve 1'],
    },
  ])('$rule', async ({ committed, offsets, steps }) => {
    const { deliver, log } = await ownerOf([0], (kafka) =>
      kafka.committed.set(INPUT, new Map([[0, committed]])),
    );
    const restored = log.length;
    await deliver(0, offsets).done;
    expect(log.slice(restored)).toEqual(steps);
  });

  it.each(['sendBatch', 'sendOffsets', 'commit'] as const)(
    'a failed %s aborts, voids the state, restores with a new producer and leaves the batch unresolved',
    async (step) => {
      const { kafka, deliver, log, runner, handler } = await ownerOf([0]);
      kafka.producers[0].failOn = step;
      const restored = log.length;
      const { batch, done } = deliver(0, [0, 1]);
      await expect(done).rejects.toBeInstanceOf(PartitionReset);
      expect(batch.resolved).toEqual([]);
      expect(handler.commits).toEqual([]); // what the failed transaction decided is never told
      await eventually(() => runner.owned().includes(0) && kafka.producers.length === 2, {
        what: 'restored again',
        everyMs: 1,
      });
      const after = log.slice(restored);
      const failed = after.findIndex((s) => s.startsWith(`g-0#0 ${step}`));
      expect(after.slice(failed).map((s) => s.split(' ').slice(0, 2).join(' '))).toEqual([
        `g-0#0 ${step}`,
        'g-0#0 abort',
        'release 0',
        'g-0#0 disconnect',
        'g-0#1 connect',
        'g-0#1 abort',
        'fetch committed',
        'restore [0]',
      ]);
      // The batch comes again (kafkajs re-fetches it) and goes through the new producer.
      const again = deliver(0, [0, 1]);
      await again.done;
      expect(again.batch.resolved).toEqual(['1']);
      expect(log.slice(-2)).toEqual(['g-0#1 commit', 'resolve 1']);
      expect(handler.commits).toEqual([0]);
    },
  );

  describe('readiness after a failed transaction', () => {
    const stuck = (why: string) =>
      `not ready: partition 0 makes no progress: its transaction failed: ${why}`;

    it('stays not ready while the failed batch waits to be applied, ready once it commits', async () => {
      const { kafka, deliver, readiness, runner } = await ownerOf([0]);
      kafka.producers[0].failOn = 'commit';
      await expect(deliver(0, [0, 1]).done).rejects.toBeInstanceOf(PartitionReset);
      await eventually(() => runner.owned().includes(0), { what: 'restored again', everyMs: 1 });
      expect(readiness.at(-1)).toBe(stuck('commit failed'));
      await deliver(0, [0, 1]).done;
      expect(readiness.at(-1)).toBe('ready: owns partitions [0]');
    });

    it('is ready after the restore when the failed commit took effect after all (its answer was lost)', async () => {
      const { kafka, deliver, readiness, runner } = await ownerOf([0]);
      kafka.producers[0].failOn = 'commit';
      // What the restore will read: the broker wrote the commit before it died.
      kafka.committed.set(INPUT, new Map([[0, '2']]));
      await expect(deliver(0, [0, 1]).done).rejects.toBeInstanceOf(PartitionReset);
      await eventually(() => runner.owned().includes(0), { what: 'restored again', everyMs: 1 });
      expect(readiness.at(-1)).toBe('ready: owns partitions [0]');
    });

    it("is ready after the restore when a wake's transaction failed (the restore asks again)", async () => {
      const { readiness, runner, log } = await ownerOf([0], (kafka, handler) => {
        handler.wakeAt = Date.now();
        kafka.failNextProducer = 'commit';
      });
      await eventually(() => log.includes('g-0#1 connect'), {
        what: 'restored with a new producer',
        everyMs: 1,
      });
      expect(readiness).toContain(stuck('commit failed'));
      await eventually(() => runner.owned().includes(0), { what: 'restored again', everyMs: 1 });
      expect(readiness.at(-1)).toBe('ready: owns partitions [0]');
    });
  });

  it.each([
    {
      rule: 'fencing fails (a newer owner)',
      setup: (k: FakeKafka) => (k.failNextProducer = 'abort'),
    },
    {
      rule: 'reading the history fails',
      setup: (_: FakeKafka, h: FakeHandler) => (h.failRestores = 1),
    },
  ])('retries a restore when $rule, with a fresh producer', async ({ setup }) => {
    const { log, readiness } = await ownerOf([0], setup);
    expect(log.filter((s) => s.startsWith('release') || s.endsWith('disconnect'))).toEqual([
      'release 0',
      'g-0#0 disconnect',
    ]);
    expect(log.slice(-4)).toEqual([
      'g-0#1 connect',
      'g-0#1 abort',
      'fetch committed offsets',
      'restore [0] from -',
    ]);
    expect(readiness.at(-1)).toBe('ready: owns partitions [0]');
  });

  it('never fences or resolves for a partition it was not assigned', async () => {
    const { kafka, deliver, log } = await ownerOf([0]);
    const restored = log.length;
    const { batch, done } = deliver(1, [0]);
    await done;
    expect(batch.resolved).toEqual([]);
    expect(log.slice(restored)).toEqual([]);
    expect(kafka.producers).toHaveLength(1);
  });

  it('releases a partition lost in a rebalance and closes its producer', async () => {
    const { kafka, log, runner, readiness } = await ownerOf([0, 1]);
    const consumer = kafka.consumers[0];
    consumer.emit(consumer.events.GROUP_JOIN, { memberAssignment: { [INPUT]: [1] } });
    await eventually(() => log.includes('g-0#0 disconnect'), { what: 'p0 closed', everyMs: 1 });
    expect(log).toContain('release 0');
    expect(runner.owned()).toEqual([1]);
    expect(readiness.at(-1)).toBe('ready: owns partitions [1]');
  });

  it("runs a partition's own work when due, in a transaction of its own without offsets, after the batches before it", async () => {
    const { handler, log, deliver } = await ownerOf([0]);
    const restored = log.length;
    handler.wakeAt = Date.now();
    await deliver(0, [0, 1]).done;
    await eventually(() => log.includes('g-0#0 commit') && log.at(-1) === 'g-0#0 commit', {
      what: 'woken',
      everyMs: 1,
    });
    expect(log.slice(restored).filter((s) => !s.startsWith('resolve'))).toEqual([
      'process 0: 0,1',
      `g-0#0 sendBatch ${OUTPUT}×2`,
      'g-0#0 sendOffsets kpm.in@2',
      'g-0#0 commit',
      'wake 0 at 2',
      `g-0#0 sendBatch ${OUTPUT}×1`,
      'g-0#0 commit',
    ]);
    expect(handler.commits).toEqual([0, 0]); // the batch's transaction, then the wake's
  });

  it('reports a consumer that stopped for good as not ready', async () => {
    const { kafka, readiness } = await ownerOf([0]);
    const consumer = kafka.consumers[0];
    consumer.emit(consumer.events.CRASH, { error: new Error('no brokers'), restart: false });
    expect(readiness.at(-1)).toBe('not ready: consumer stopped: no brokers');
  });
});
