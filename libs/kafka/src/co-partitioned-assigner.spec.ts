import { coPartitionedPlan } from './co-partitioned-assigner';

describe('coPartitionedPlan', () => {
  it('gives every partition number to exactly one member, spread evenly', () => {
    const plan = coPartitionedPlan(['m-b', 'm-a', 'm-c'], 6);
    expect([...plan]).toEqual([
      ['m-a', [0, 3]],
      ['m-b', [1, 4]],
      ['m-c', [2, 5]],
    ]);
  });

  it('gives a lone member everything and extra members nothing', () => {
    expect([...coPartitionedPlan(['solo'], 6)]).toEqual([['solo', [0, 1, 2, 3, 4, 5]]]);
    const crowded = coPartitionedPlan(['a', 'b', 'c'], 2);
    expect(crowded.get('c')).toEqual([]);
  });
});
