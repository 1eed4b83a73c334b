import { FakeKafka } from './__fixtures__/fake-kafka';
import { SharedAdmin } from './shared-admin';

const kafkaError = (type: string, message: string) => Object.assign(new Error(message), { type });
const notLeader = kafkaError(
  'NOT_LEADER_FOR_PARTITION',
  'This server is not the leader for that topic-partition',
);

describe('SharedAdmin.partitionOffsets', () => {
  it("answers each partition's first retained offset and the next record's offset", async () => {
    const kafka = new FakeKafka();
    const admin = new SharedAdmin(kafka.asClient());
    await expect(admin.partitionOffsets('kpm.commands')).resolves.toEqual([
      { partition: 0, low: '2', end: '7' },
    ]);
  });

  it('asks again over fresh connections while the leader is not where the metadata says', async () => {
    const kafka = new FakeKafka();
    kafka.offsetFailures = { count: 2, error: notLeader };
    const admin = new SharedAdmin(kafka.asClient());

    await expect(admin.partitionOffsets('kpm.commands')).resolves.toHaveLength(1);
    // The shared connection (admin 1) stays open for its other callers; each retry brings its own.
    expect(kafka.adminLog).toEqual([
      'fetch kpm.commands offsets on admin 1',
      'fetch kpm.commands offsets on admin 2',
      'disconnect admin 2',
      'fetch kpm.commands offsets on admin 3',
      'disconnect admin 3',
    ]);
  });

  it.each([
    ['not stale leadership', kafkaError('TOPIC_AUTHORIZATION_FAILED', 'Not authorized'), 1],
    ['an error without a Kafka type', new Error('Connection timeout'), 1],
  ])('fails at once on %s', async (_, error, calls) => {
    const kafka = new FakeKafka();
    kafka.offsetFailures = { count: 1, error };
    await expect(new SharedAdmin(kafka.asClient()).partitionOffsets('t')).rejects.toBe(error);
    expect(kafka.adminLog.filter((step) => step.startsWith('fetch'))).toHaveLength(calls);
  });

  it('gives up with the last answer when the leader never serves before the deadline', async () => {
    const kafka = new FakeKafka();
    kafka.offsetFailures = { count: Infinity, error: notLeader };
    await expect(new SharedAdmin(kafka.asClient()).partitionOffsets('t', 0)).rejects.toBe(
      notLeader,
    );
  });
});
