import type { V1Pod } from '@kubernetes/client-node';
import { KpmLabels } from './kpm-labels';
import { livenessByUuid, podLiveness } from './pod-liveness';

const labels = new KpmLabels('drunc.daq');
const pod = (uuid: string, phase?: string): V1Pod => ({
  metadata: { name: 'ru-01', labels: { 'uuid.drunc.daq': uuid } },
  ...(phase ? { status: { phase } } : {}),
});

describe('podLiveness (drunc is_alive)', () => {
  it.each<[string, V1Pod | undefined, { alive: boolean; phase: string }]>([
    ['a Running pod', pod('u1', 'Running'), { alive: true, phase: 'Running' }],
    ['a Pending pod', pod('u1', 'Pending'), { alive: false, phase: 'Pending' }],
    ['a Succeeded pod', pod('u1', 'Succeeded'), { alive: false, phase: 'Succeeded' }],
    ['a Failed pod', pod('u1', 'Failed'), { alive: false, phase: 'Failed' }],
    ['a pod without status yet', pod('u1'), { alive: false, phase: 'Unknown' }],
    ['no pod', undefined, { alive: false, phase: 'Gone' }],
  ])('%s', (_, given, expected) => {
    expect(podLiveness(given)).toEqual(expected);
  });
});

describe('livenessByUuid', () => {
  it('matches pods by uuid label, so a newer pod of the same name does not count', () => {
    const found = livenessByUuid(
      ['u1', 'u2', 'u3'],
      [pod('u2', 'Running'), pod('u9', 'Running'), { metadata: { name: 'unlabelled' } }],
      labels,
    );
    expect(Object.fromEntries(found)).toEqual({
      u1: { alive: false, phase: 'Gone' },
      u2: { alive: true, phase: 'Running' },
      u3: { alive: false, phase: 'Gone' },
    });
  });
});
