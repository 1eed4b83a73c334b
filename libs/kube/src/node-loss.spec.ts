import type { V1Node } from '@kubernetes/client-node';
import { lostNodes, nodeLossText } from './node-loss';

const node = (name: string, ready?: Record<string, unknown>): V1Node => ({
  metadata: { name },
  status: ready ? { conditions: [{ type: 'Ready', ...ready } as never] } : {},
});

describe('lostNodes', () => {
  it.each<[string, V1Node, boolean]>([
    ['Ready True: reporting', node('a', { status: 'True', reason: 'KubeletReady' }), false],
    ['Ready False: its kubelet still reports', node('a', { status: 'False' }), false],
    ['no Ready condition yet: not lost', node('a'), false],
    [
      'Ready Unknown: lost',
      node('a', {
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status.',
      }),
      true,
    ],
  ])('%s', (_title, given, lost) => {
    expect(lostNodes([given]).has('a')).toBe(lost);
  });

  it("keeps the condition's words and time, Date or string", () => {
    const at = '2026-11-27T20:00:00.000Z';
    const lost = lostNodes([
      node('kpm-real-1', {
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
        message: 'Kubelet stopped posting node status.',
        lastTransitionTime: new Date(at),
      }),
      node('kpm-node-1', { status: 'Unknown', lastTransitionTime: at }),
    ]);
    expect(nodeLossText(lost.get('kpm-real-1')!)).toBe(
      `node kpm-real-1 lost (Ready Unknown since ${at}: NodeStatusUnknown: Kubelet stopped posting node status.)`,
    );
    expect(lost.get('kpm-node-1')).toEqual({
      node: 'kpm-node-1',
      reason: 'NodeStatusUnknown',
      message: 'the node stopped reporting',
      since: at,
    });
  });
});
