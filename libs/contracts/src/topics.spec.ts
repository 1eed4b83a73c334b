import { MAX_RECORD_BYTES, topicName, topicSpecs, TOPICS } from './topics';

const DAY = 86_400_000;

describe('topics', () => {
  it('names topics from a prefix', () => {
    expect(topicName('commands')).toBe('kpm.commands');
    expect(topicName('dead-letters', 'test-7')).toBe('test-7.dead-letters');
  });

  it("describes docs/design.md §2's table for the Kafka admin", () => {
    const specs = topicSpecs();
    const config = (topic: string) =>
      Object.fromEntries(
        specs.find((s) => s.topic === topic)!.configEntries.map((e) => [e.name, e.value]),
      );
    expect(specs.map((s) => s.topic)).toEqual([
      'kpm.commands',
      'kpm.process-events',
      'kpm.terminations',
      'kpm.completions',
      'kpm.broadcast',
      'kpm.processes',
      'kpm.dead-letters',
      'kpm.state-snapshots',
    ]);
    expect(specs.every((s) => s.numPartitions === 6)).toBe(true);
    expect(config('kpm.commands')).toEqual({
      'cleanup.policy': 'delete',
      'retention.ms': String(7 * DAY),
      'max.message.bytes': String(MAX_RECORD_BYTES),
    });
    expect(config('kpm.broadcast')['retention.ms']).toBe(String(DAY));
    expect(config('kpm.dead-letters')['retention.ms']).toBe(String(30 * DAY));
    expect(config('kpm.processes')).toEqual({
      'cleanup.policy': 'compact',
      'max.message.bytes': String(MAX_RECORD_BYTES),
    });
    expect(config('kpm.state-snapshots')).toMatchObject({
      'cleanup.policy': 'compact',
      'segment.ms': String(DAY / 24),
    });
    expect(TOPICS.processes.key).toBe('process-uuid');
    expect(TOPICS['dead-letters'].key).toBe('original-key');
  });

  it('takes the prefix and partition count from the caller', () => {
    const specs = topicSpecs({ prefix: 'p', partitions: 3 });
    expect(specs[0]).toMatchObject({ id: 'commands', topic: 'p.commands', numPartitions: 3 });
  });

  it.each([
    [{}, undefined, undefined],
    [{ replicationFactor: 3, minInsyncReplicas: 2 }, 3, '2'],
    [{ replicationFactor: 1, minInsyncReplicas: 1 }, 1, '1'],
  ])('replication %j: factor %s, min.insync.replicas %s', (layout, factor, minIsr) => {
    for (const spec of topicSpecs(layout)) {
      expect(spec.replicationFactor).toBe(factor);
      const entry = spec.configEntries.find((e) => e.name === 'min.insync.replicas');
      expect(entry?.value).toBe(minIsr);
    }
  });
});
