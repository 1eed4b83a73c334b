import type { V1Toleration } from '@kubernetes/client-node';
import { UNREACHABLE_TAINT, withNodeLost } from './node-lost-toleration';

const lost = (seconds: number): V1Toleration => ({
  key: UNREACHABLE_TAINT,
  operator: 'Exists',
  effect: 'NoExecute',
  tolerationSeconds: seconds,
});
const dedicated: V1Toleration = {
  key: 'daq.dune/readout',
  operator: 'Equal',
  value: 'yes',
  effect: 'NoSchedule',
};

describe('withNodeLost', () => {
  it.each<[string, V1Toleration[] | undefined, number, V1Toleration[]]>([
    ['no placement tolerations: the lost node one alone', undefined, 30, [lost(30)]],
    ['zero: evicted as soon as the node is lost', [], 0, [lost(0)]],
    ['a tainted allowed host keeps its toleration', [dedicated], 30, [dedicated, lost(30)]],
    [
      'an unreachable toleration of the placement gives way to the setting',
      [{ ...lost(5), operator: 'Equal', value: '' }],
      30,
      [lost(30)],
    ],
  ])('%s', (_title, placement, seconds, expected) => {
    expect(withNodeLost(placement, { nodeLostSeconds: seconds })).toEqual(expected);
  });
});
