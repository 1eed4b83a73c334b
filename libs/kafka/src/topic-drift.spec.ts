import { topicSpecs } from '@kpm/contracts';
import { TopicDriftError, topicDrift, type ObservedTopic } from './topic-drift';

const [commands] = topicSpecs({
  prefix: 'p',
  partitions: 6,
  replicationFactor: 3,
  minInsyncReplicas: 2,
});
const [unreplicated] = topicSpecs({ prefix: 'p', partitions: 6 });

/** The topic exactly as kpm creates `commands`, with one thing changed by `change`. */
function observed(change: (topic: ObservedTopic) => void = () => undefined): ObservedTopic {
  const topic: ObservedTopic = {
    name: 'p.commands',
    replicasPerPartition: [3, 3, 3, 3, 3, 3],
    configs: Object.fromEntries(commands.configEntries.map((e) => [e.name, e.value])),
  };
  change(topic);
  return topic;
}

describe('topicDrift', () => {
  it.each([
    ['a topic as kpm creates it', observed(), []],
    [
      'fewer partitions',
      observed((t) => (t.replicasPerPartition = [3, 3, 3])),
      [{ setting: 'partitions', expected: '6', actual: '3' }],
    ],
    [
      'a lower replication factor',
      observed((t) => (t.replicasPerPartition = [1, 1, 1, 1, 1, 1])),
      [{ setting: 'replication.factor', expected: '3', actual: '1' }],
    ],
    [
      'partitions replicated unevenly',
      observed((t) => (t.replicasPerPartition = [3, 3, 2, 3, 3, 3])),
      [{ setting: 'replication.factor', expected: '3', actual: '2,3' }],
    ],
    [
      'another cleanup.policy',
      observed((t) => (t.configs['cleanup.policy'] = 'compact')),
      [{ setting: 'cleanup.policy', expected: 'delete', actual: 'compact' }],
    ],
    [
      'the broker default min.insync.replicas',
      observed((t) => (t.configs['min.insync.replicas'] = '1')),
      [{ setting: 'min.insync.replicas', expected: '2', actual: '1' }],
    ],
    [
      'a config the broker does not report',
      observed((t) => delete t.configs['retention.ms']),
      [{ setting: 'retention.ms', expected: String(7 * 86_400_000), actual: 'unset' }],
    ],
    [
      'two differences at once',
      observed((t) => {
        t.replicasPerPartition = [1, 1];
        t.configs['max.message.bytes'] = '1048588';
      }),
      [
        { setting: 'partitions', expected: '6', actual: '2' },
        { setting: 'replication.factor', expected: '3', actual: '1' },
        { setting: 'max.message.bytes', expected: String(8 * 1024 * 1024), actual: '1048588' },
      ],
    ],
  ])('%s', (_case, topic, expected) => {
    expect(topicDrift(commands, topic)).toEqual(
      expected.map((drift) => ({ topic: 'p.commands', ...drift })),
    );
  });

  it('leaves the replication factor to the broker when the spec has none', () => {
    const topic = observed((t) => (t.replicasPerPartition = [1, 1, 1, 1, 1, 1]));
    delete topic.configs['min.insync.replicas'];
    expect(topicDrift(unreplicated, topic)).toEqual([]);
  });

  it('names topic, setting, expected and actual in the error', () => {
    const error = new TopicDriftError(
      topicDrift(
        commands,
        observed((t) => (t.replicasPerPartition = [3, 3, 3])),
      ),
    );
    expect(error.message).toContain('topic p.commands: partitions is 3, kpm expects 6');
  });
});
