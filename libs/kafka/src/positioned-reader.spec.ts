import type { KafkaMessage } from 'kafkajs';
import type { InboundRecord } from './inbound-record';
import type { KafkaClient } from './kafka-client';
import { readFromPositions } from './positioned-reader';

/** A record of a fetch response; `control` marks a transaction marker (commit or abort). */
function message(
  offset: number,
  options: { control?: 'commit' | 'abort'; producerId?: string } = {},
) {
  const producerId = options.producerId ?? '7';
  return {
    offset: String(offset),
    key: options.control
      ? Buffer.from([0, 0, 0, options.control === 'abort' ? 0 : 1])
      : Buffer.from('s'),
    value: Buffer.from(`v${offset}`),
    headers: {},
    timestamp: '0',
    attributes: 0,
    isControlRecord: options.control !== undefined,
    batchContext: { producerId, inTransaction: true },
  } as unknown as KafkaMessage;
}

interface Response {
  partition: number;
  messages: KafkaMessage[];
  abortedTransactions?: Array<{ producerId: string; firstOffset: string }>;
}

type Step = Response[] | Error;

/**
 * kafkajs' cluster as the reader uses it: one topic `t`, partitions led by the nodes given,
 * each node's fetches answered from a script (a step per fetch, a response or an error), then held open
 * until the reader disconnects, as a broker's long poll would be.
 */
class FakeCluster {
  readonly fetches: Array<{ nodeId: string; offsets: Record<number, string> }> = [];
  readonly log: string[] = [];
  private holds: Array<(error: Error) => void> = [];

  constructor(
    public leaders: Record<string, number[]>,
    /** Each node's fetches, in order. */
    private readonly script: Record<string, Step[]>,
    private readonly ends: Record<number, string> = {},
  ) {}

  connect = () => Promise.resolve();
  disconnect = () => {
    this.log.push('disconnect');
    for (const hold of this.holds.splice(0))
      hold(Object.assign(new Error('closed'), { retriable: true }));
    return Promise.resolve();
  };
  addMultipleTargetTopics = () => Promise.resolve();
  refreshMetadata = () => {
    this.log.push('refresh');
    return Promise.resolve();
  };
  refreshMetadataIfNecessary = () => Promise.resolve();
  removeBroker = () => undefined;
  findTopicPartitionMetadata = () =>
    Object.values(this.leaders)
      .flat()
      .sort()
      .map((partitionId) => ({ partitionId }));
  findLeaderForPartitions = (_topic: string, partitions: number[]) =>
    Object.fromEntries(
      Object.entries(this.leaders).map(([node, led]) => [
        node,
        led.filter((p) => partitions.includes(p)),
      ]),
    );
  /** The first offset of each partition (0 if not given), as retention left it. */
  firsts: Record<number, string> = {};
  fetchTopicsOffset = (
    topics: Array<{
      topic: string;
      partitions: Array<{ partition: number }>;
      fromBeginning: boolean;
    }>,
  ) =>
    Promise.resolve(
      topics.map(({ topic, partitions, fromBeginning }) => ({
        topic,
        partitions: partitions.map(({ partition }) => ({
          partition,
          offset: (fromBeginning ? this.firsts : this.ends)[partition] ?? '0',
        })),
      })),
    );
  findBroker = ({ nodeId }: { nodeId: string }) =>
    Promise.resolve({
      fetch: (request: {
        topics: Array<{ partitions: Array<{ partition: number; fetchOffset: string }> }>;
      }) => {
        const offsets = Object.fromEntries(
          request.topics[0].partitions.map((p) => [p.partition, p.fetchOffset]),
        );
        this.fetches.push({ nodeId, offsets });
        const step = this.script[nodeId]?.shift();
        if (step === undefined) {
          return new Promise<never>((_, reject) => this.holds.push(reject));
        }
        if (step instanceof Error) return Promise.reject(step);
        return Promise.resolve({
          responses: [
            {
              topicName: 't',
              partitions: step.map((r) => ({
                highWatermark: '100',
                abortedTransactions: [],
                ...r,
              })),
            },
          ],
        });
      },
    });
}

function kafkaWith(cluster: FakeCluster): KafkaClient {
  return { [Symbol('private:Kafka:createCluster')]: () => cluster } as unknown as KafkaClient;
}

/** Starts a reader on `cluster` and collects what it hands out until `count` records or an error. */
async function read(
  cluster: FakeCluster,
  next: Record<string, string>,
  count: number,
  maxFailures?: number,
) {
  const records: InboundRecord[] = [];
  const sleeps: number[] = [];
  let settle!: (outcome: string) => void;
  const settled = new Promise<string>((resolve) => (settle = resolve));
  const positions = new Map(Object.entries(next));
  const reader = await readFromPositions(kafkaWith(cluster), {
    topics: ['t'],
    next: positions,
    fromBeginning: false,
    maxFailures,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    onRecord: (record) => {
      records.push(record);
      if (records.length === count) settle('records');
    },
    onError: (error) => settle(`error: ${error.message}`),
  });
  const outcome = await settled;
  await reader.close();
  return { outcome, records: records.map((r) => `${r.partition}@${r.offset}`), positions, sleeps };
}

const retriable = (message: string) => Object.assign(new Error(message), { retriable: true });

describe('readFromPositions, without a consumer group', () => {
  it('hands out records from the positions given, in offset order per partition', async () => {
    const cluster = new FakeCluster(
      { '1': [0, 1] },
      {
        '1': [
          [
            { partition: 0, messages: [message(3), message(4)] },
            { partition: 1, messages: [message(0)] },
          ],
          [{ partition: 0, messages: [message(5)] }],
        ],
      },
    );
    const { records, positions } = await read(cluster, { 't/0': '3', 't/1': '0' }, 4);
    expect(records).toEqual(['0@3', '0@4', '1@0', '0@5']);
    expect(cluster.fetches.slice(0, 2).map((f) => f.offsets)).toEqual([
      { 0: '3', 1: '0' },
      { 0: '5', 1: '1' },
    ]);
    expect(positions.get('t/0')).toBe('6');
  });

  it('leaves out an aborted transaction and the markers, and moves past them', async () => {
    const cluster = new FakeCluster(
      { '1': [0] },
      {
        '1': [
          [
            {
              partition: 0,
              messages: [
                message(0),
                message(1, { control: 'abort' }),
                message(2),
                message(3, { control: 'commit' }),
              ],
              abortedTransactions: [{ producerId: '7', firstOffset: '0' }],
            },
          ],
          [{ partition: 0, messages: [message(4)] }],
        ],
      },
    );
    const { records } = await read(cluster, { 't/0': '0' }, 2);
    expect(records).toEqual(['0@2', '0@4']);
    expect(cluster.fetches[1].offsets).toEqual({ 0: '4' });
  });

  it('drops records before the position asked for (a compressed batch starts earlier)', async () => {
    const cluster = new FakeCluster(
      { '1': [0] },
      { '1': [[{ partition: 0, messages: [message(8), message(9), message(10)] }]] },
    );
    const { records } = await read(cluster, { 't/0': '10' }, 1);
    expect(records).toEqual(['0@10']);
  });

  it('starts a partition missing from the positions at its end', async () => {
    const cluster = new FakeCluster(
      { '1': [0] },
      { '1': [[{ partition: 0, messages: [message(42)] }]] },
      {
        0: '42',
      },
    );
    const { records } = await read(cluster, {}, 1);
    expect(records).toEqual(['0@42']);
    expect(cluster.fetches[0].offsets).toEqual({ 0: '42' });
  });

  it('after a moved leader reads metadata again and goes on from the next offset: nothing twice, nothing skipped', async () => {
    const cluster = new FakeCluster(
      { '1': [0] },
      {
        '1': [
          [{ partition: 0, messages: [message(0)] }],
          retriable('This server is not the leader for that topic-partition'),
          [{ partition: 0, messages: [message(1)] }],
        ],
      },
    );
    const { records, sleeps } = await read(cluster, { 't/0': '0' }, 2);
    expect(records).toEqual(['0@0', '0@1']);
    expect(cluster.log).toContain('refresh');
    expect(cluster.fetches.slice(0, 3).map((f) => f.offsets[0])).toEqual(['0', '1', '1']);
    expect(sleeps).toEqual([200]);
  });

  it('counts failed rounds in a row only: a round that fetched starts the count again', async () => {
    const down = () => retriable('Connection error: ECONNRESET');
    const ok = (offset: number) => [{ partition: 0, messages: [message(offset)] }];
    const cluster = new FakeCluster({ '1': [0] }, { '1': [ok(0), down(), ok(1), down(), ok(2)] });
    const { outcome, records } = await read(cluster, { 't/0': '0' }, 3, 1);
    expect(outcome).toBe('records');
    expect(records).toEqual(['0@0', '0@1', '0@2']);
  });

  it("brings a position retention deleted up to the partition's first record", async () => {
    const outOfRange = Object.assign(new Error('The requested offset is not within the range'), {
      name: 'KafkaJSOffsetOutOfRange',
      retriable: false,
      topic: 't',
      partition: 0,
    });
    const cluster = new FakeCluster(
      { '1': [0] },
      { '1': [outOfRange, [{ partition: 0, messages: [message(50)] }]] },
      { 0: '60' },
    );
    cluster.firsts = { 0: '50' };
    const { records } = await read(cluster, { 't/0': '10' }, 1);
    expect(records).toEqual(['0@50']);
    expect(cluster.fetches.slice(0, 2).map((f) => f.offsets[0])).toEqual(['10', '50']);
  });

  it('follows each leader in a loop of its own: a silent leader does not hold back the other', async () => {
    const cluster = new FakeCluster(
      { '1': [0], '2': [1] },
      { '2': [[{ partition: 1, messages: [message(0)] }]] },
    );
    // Node 1's fetch stays open (nothing new on partition 0) while node 2 answers.
    const { records } = await read(cluster, { 't/0': '0', 't/1': '0' }, 1);
    expect(records).toEqual(['1@0']);
  });

  it('gives up at once on an error a retry cannot cure, and says why', async () => {
    const cluster = new FakeCluster(
      { '1': [0] },
      { '1': [Object.assign(new Error('Not authorized to access topics'), { retriable: false })] },
    );
    const { outcome } = await read(cluster, { 't/0': '0' }, 1);
    expect(outcome).toBe('error: Not authorized to access topics');
    expect(cluster.fetches).toHaveLength(1);
  });

  it('gives up after maxFailures failed rounds in a row, backing off up to 2 s', async () => {
    const down = () => retriable('Connection error: ECONNREFUSED');
    const cluster = new FakeCluster(
      { '1': [0] },
      { '1': [down(), down(), down(), down(), down(), down()] },
    );
    const { outcome, sleeps } = await read(cluster, { 't/0': '0' }, 1, 5);
    expect(outcome).toBe('error: Connection error: ECONNREFUSED');
    expect(sleeps).toEqual([200, 400, 800, 1600, 2000]);
    expect(cluster.fetches).toHaveLength(6);
  });

  it('waits for metadata that names no leader instead of spinning', async () => {
    const cluster = new FakeCluster({}, {});
    const { outcome, sleeps } = await read(cluster, {}, 1, 2);
    expect(outcome).toBe('error: no partition of t has a leader the metadata names');
    expect(sleeps).toEqual([200, 400]);
  });

  it('hands out nothing after close, and closes the connections', async () => {
    const cluster = new FakeCluster({ '1': [0] }, { '1': [] });
    const records: InboundRecord[] = [];
    const reader = await readFromPositions(kafkaWith(cluster), {
      topics: ['t'],
      next: new Map([['t/0', '0']]),
      fromBeginning: false,
      onRecord: (record) => void records.push(record),
      onError: () => records.push({} as InboundRecord),
    });
    await reader.close();
    expect(cluster.log).toEqual(['disconnect']);
    expect(records).toEqual([]);
  });
});
