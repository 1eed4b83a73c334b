import type { Admin } from 'kafkajs';
import { createTopicsWithLeaders } from './topic-leaders';

const kafkaError = (type: string) => Object.assign(new Error(type), { type });

/** An admin whose metadata and offsets answers are scripted, in order; the last one repeats. */
function scriptedAdmin(script: { metadata: Array<number | Error>; offsets: Array<'ok' | Error> }) {
  const steps: string[] = [];
  const next = <T>(answers: T[]): T => (answers.length > 1 ? answers.shift()! : answers[0]);
  const admin = {
    createTopics: () => Promise.resolve(true),
    fetchTopicMetadata: ({ topics }: { topics: string[] }) => {
      const leader = next(script.metadata);
      steps.push(`metadata: ${leader instanceof Error ? leader.message : `leader ${leader}`}`);
      if (leader instanceof Error) return Promise.reject(leader);
      return Promise.resolve({
        topics: topics.map((name) => ({ name, partitions: [{ partitionId: 0, leader }] })),
      });
    },
    fetchTopicOffsets: (topic: string) => {
      const answer = next(script.offsets);
      steps.push(`offsets of ${topic}: ${answer instanceof Error ? answer.message : answer}`);
      if (answer instanceof Error) return Promise.reject(answer);
      return Promise.resolve([{ partition: 0, low: '0', high: '0', offset: '0' }]);
    },
  };
  return { admin: admin as unknown as Admin, steps };
}

describe('createTopicsWithLeaders', () => {
  it('waits until the metadata names a leader and that leader serves the offsets', async () => {
    const { admin, steps } = scriptedAdmin({
      metadata: [kafkaError('UNKNOWN_TOPIC_OR_PARTITION'), -1, 1],
      offsets: [kafkaError('NOT_LEADER_FOR_PARTITION'), 'ok'],
    });
    await createTopicsWithLeaders(admin, [{ topic: 't' }]);
    expect(steps).toEqual([
      'metadata: UNKNOWN_TOPIC_OR_PARTITION',
      'metadata: leader -1',
      'metadata: leader 1',
      'offsets of t: NOT_LEADER_FOR_PARTITION',
      'metadata: leader 1',
      'offsets of t: ok',
    ]);
  });

  it('fails at once on an error that waiting does not cure', async () => {
    const { admin, steps } = scriptedAdmin({
      metadata: [1],
      offsets: [kafkaError('TOPIC_AUTHORIZATION_FAILED')],
    });
    await expect(createTopicsWithLeaders(admin, [{ topic: 't' }])).rejects.toThrow(
      'TOPIC_AUTHORIZATION_FAILED',
    );
    expect(steps).toHaveLength(2);
  });
});
